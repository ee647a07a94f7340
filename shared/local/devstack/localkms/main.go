// Command localkms is local-kms (github.com/nsmithuk/local-kms, a KMS emulator in Go, pinned by
// this module's go.mod) as make dev and the tests run it: upstream's start-up (start.go and
// src.Run) with the same environment — PORT, KMS_ACCOUNT_ID, KMS_REGION, KMS_DATA_PATH (its
// LevelDB) and KMS_SEED_PATH (its seed file format; symmetric AES keys and aliases) — except
// that it listens on 127.0.0.1 only (upstream binds every interface) and stops cleanly on
// SIGTERM. Requests are answered by upstream's own src.HandleRequest.
//
// Local tooling: built by package devstack (LocalKMS) from this module; no Lambda links it.
package main

import (
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/nsmithuk/local-kms/src"
	"github.com/nsmithuk/local-kms/src/cmk"
	"github.com/nsmithuk/local-kms/src/config"
	"github.com/nsmithuk/local-kms/src/data"
	"github.com/syndtr/goleveldb/leveldb"
	"gopkg.in/yaml.v2"
)

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func main() {
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	config.AWSAccountId = env("KMS_ACCOUNT_ID", "111122223333")
	config.AWSRegion = env("KMS_REGION", "eu-west-2")
	dataPath, err := filepath.Abs(env("KMS_DATA_PATH", "/tmp/local-kms"))
	if err != nil {
		log.Fatal(err)
	}
	config.DatabasePath = dataPath
	db := data.NewDatabase(dataPath)
	if err := seed(os.Getenv("KMS_SEED_PATH"), db); err != nil {
		db.Close()
		log.Fatalf("local-kms: seed: %v", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", env("PORT", "8080")))
	if err != nil {
		db.Close()
		log.Fatalf("local-kms: %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { src.HandleRequest(w, r, db) })
	srv := &http.Server{Handler: mux}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-sig
		_ = srv.Close()
	}()
	log.Printf("local-kms listening at http://%s (account %s, region %s, data %s)", ln.Addr(), config.AWSAccountId, config.AWSRegion, dataPath)
	err = srv.Serve(ln)
	db.Close()
	if !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("local-kms: %v", err)
	}
}

// seed imports the AES keys and aliases of the seed file (upstream's format, "Keys: Symmetric:
// Aes:" and "Aliases:"), keeping a key or alias that already exists as it is, as upstream does.
func seed(path string, db *data.Database) error {
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	var in struct {
		Keys struct {
			Symmetric struct {
				Aes []cmk.AesKey `yaml:"Aes"`
			} `yaml:"Symmetric"`
		} `yaml:"Keys"`
		Aliases []data.Alias `yaml:"Aliases"`
	}
	if err := yaml.UnmarshalStrict(b, &in); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for i := range in.Keys.Symmetric.Aes {
		k := &in.Keys.Symmetric.Aes[i]
		if _, err := db.LoadKey(k.Metadata.Arn); !errors.As(err, &data.KeyNotFoundError) {
			continue // kept: its backing key is what sealed what the data dir holds
		}
		if err := db.SaveKey(k); err != nil {
			return err
		}
		log.Printf("local-kms: seeded key %s", k.Metadata.Arn)
	}
	for i := range in.Aliases {
		a := &in.Aliases[i]
		a.AliasArn = config.ArnPrefix() + a.AliasName
		if _, err := db.LoadAlias(a.AliasArn); !errors.Is(err, leveldb.ErrNotFound) {
			continue
		}
		if err := db.SaveAlias(a); err != nil {
			return err
		}
	}
	return nil
}
