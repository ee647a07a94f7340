package devstack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// The local stack's KMS key (StartKMS seeds it): a symmetric AES key with a fixed id, so its
// ARN (KMSKeyARN) is the same in every run and WEBHOOK_SECRETS_KEY_ID can name it as
// template.yaml's !GetAtt WebhookSecretsKey.Arn does on AWS.
const (
	// KMSKeyID is the seeded key's id.
	KMSKeyID = "0b5e7a1c-4d2f-4e8a-9c3b-6f1d2e4a8b7c"
	// KMSAccountID is the account local-kms puts into its ARNs.
	KMSAccountID = "111122223333"
	// KMSKeyARN is the seeded key's ARN (region Region).
	KMSKeyARN = "arn:aws:kms:" + Region + ":" + KMSAccountID + ":key/" + KMSKeyID
)

// KMSOptions configures StartKMS.
type KMSOptions struct {
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// DataDir is local-kms's LevelDB directory (created if missing), so that the key and what
	// it sealed survive a restart; "" uses a temporary directory removed by Stop.
	DataDir string
	// LogWriter, if set, receives the server's output line by line, prefixed with "[kms] ".
	LogWriter io.Writer
}

// StartKMS starts local-kms (github.com/nsmithuk/local-kms, a KMS emulator speaking the real
// KMS protocol, pinned in shared/local/devstack/localkms/go.mod and built by LocalKMS) on
// 127.0.0.1 with the key KMSKeyARN seeded, and waits until it listens; ctx bounds the build
// and start-up. A kms client reaches it with BaseEndpoint = Endpoint (KMSClient), or a process
// with AWS_ENDPOINT_URL_KMS = Endpoint; it accepts any credentials.
func StartKMS(ctx context.Context, opts KMSOptions) (*Server, error) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		return nil, fmt.Errorf("devstack: %w", err)
	}
	bin, err := LocalKMS(ctx, root)
	if err != nil {
		return nil, err
	}
	dataDir, tmp := opts.DataDir, ""
	if dataDir == "" {
		if tmp, err = os.MkdirTemp("", "local-kms-"); err != nil {
			return nil, fmt.Errorf("devstack: %w", err)
		}
		dataDir = tmp
	} else if dataDir, err = filepath.Abs(dataDir); err != nil {
		return nil, fmt.Errorf("devstack: %w", err)
	}
	seedPath := filepath.Join(dataDir, "seed.yaml")
	if err := writeKMSSeed(dataDir, seedPath); err != nil {
		if tmp != "" {
			_ = os.RemoveAll(tmp)
		}
		return nil, err
	}
	s, err := startServer(ctx, serverSpec{
		name:    "kms",
		program: bin,
		args:    func(int) []string { return nil },
		env: func(port int) []string {
			return []string{"PORT=" + strconv.Itoa(port), "KMS_ACCOUNT_ID=" + KMSAccountID, "KMS_REGION=" + Region,
				"KMS_DATA_PATH=" + filepath.Join(dataDir, "db"), "KMS_SEED_PATH=" + seedPath}
		},
		readyMarker: "local-kms listening at",
		port:        opts.Port,
		logWriter:   opts.LogWriter,
		dir:         dataDir,
	})
	if err != nil {
		if tmp != "" {
			_ = os.RemoveAll(tmp)
		}
		return nil, err
	}
	if tmp != "" {
		s.cleanup = func() { _ = os.RemoveAll(tmp) }
	}
	return s, nil
}

// writeKMSSeed writes the seed file of the key KMSKeyID, with a new random backing key. local-kms
// imports a seeded key only when its database does not hold it yet, so a kept data dir keeps
// the backing key its first start chose.
func writeKMSSeed(dataDir, path string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("devstack: kms data dir: %w", err)
	}
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return err
	}
	text := fmt.Sprintf(`# written by devstack.StartKMS at every start; local-kms keeps a key it already holds
Keys:
  Symmetric:
    Aes:
      - Metadata:
          KeyId: %s
          Description: Takapay local stack - webhook signing secrets (WebhookSecretsKey)
        BackingKeys:
          - %s
Aliases:
  - AliasName: alias/takapay-local-webhook-secrets
    TargetKeyId: %s
`, KMSKeyID, hex.EncodeToString(key[:]), KMSKeyID)
	return os.WriteFile(path, []byte(text), 0o600)
}

// KMSClient returns a KMS client for cfg whose BaseEndpoint is endpoint.
func KMSClient(cfg aws.Config, endpoint string) *kms.Client {
	return kms.NewFromConfig(cfg, func(o *kms.Options) { o.BaseEndpoint = aws.String(endpoint) })
}

// LocalKMSCacheDir is where LocalKMS keeps its build (.build is ignored by git, removed by
// `make clean`).
func LocalKMSCacheDir(root string) string { return filepath.Join(root, ".build", "host", "localkms") }

// LocalKMS builds shared/local/devstack/localkms (local-kms, listening on loopback) with the
// versions its own go.mod pins (BuildTool) and returns the binary's path.
func LocalKMS(ctx context.Context, root string) (string, error) {
	return BuildTool(ctx, filepath.Join(root, "shared", "local", "devstack", "localkms"), ".",
		[]string{"go.mod", "go.sum", "main.go"}, LocalKMSCacheDir(root), "local-kms")
}
