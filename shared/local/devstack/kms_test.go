package devstack_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/webhook"
)

func startKMS(t *testing.T, dataDir string) *devstack.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a first build
	defer cancel()
	s, err := devstack.StartKMS(ctx, devstack.KMSOptions{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("local-kms output:\n%s", s.Logs())
		}
	})
	return s
}

func kmsSealer(t *testing.T, endpoint string) *kmsseal.KMS {
	t.Helper()
	cfg, err := devstack.AWSConfig(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	return &kmsseal.KMS{Client: devstack.KMSClient(cfg, endpoint), KeyID: devstack.KMSKeyARN, Timeout: 2 * time.Second}
}

// local-kms, built from its pinned module and started on loopback, answers the KMS protocol
// with the seeded key: a secret sealed through it opens under its scope only, the key and what
// it sealed survive a restart on the same data dir, and a paused server fails a call within
// the sealer's bound and answers again once resumed.
func TestKMS(t *testing.T) {
	devstack.RequireServers(t)
	dir := t.TempDir()
	s := startKMS(t, dir)
	if !strings.HasPrefix(s.Endpoint, "http://127.0.0.1:") {
		t.Fatalf("endpoint %s", s.Endpoint)
	}
	// Loopback only: the port does not answer on another address of this host.
	if addrs, _ := net.InterfaceAddrs(); len(addrs) > 0 {
		for _, a := range addrs {
			ip, ok := a.(*net.IPNet)
			if !ok || ip.IP.IsLoopback() || ip.IP.To4() == nil {
				continue
			}
			if c, err := net.DialTimeout("tcp", net.JoinHostPort(ip.IP.String(), strings.TrimPrefix(s.Endpoint, "http://127.0.0.1:")), time.Second); err == nil {
				c.Close()
				t.Errorf("local-kms answers on %s", ip.IP)
			}
		}
	}

	ctx := context.Background()
	scope := webhook.Scope{WorkspaceID: "ws_kmstest", Environment: auth.Sandbox}
	secret := bytes.Repeat([]byte{7}, 32)
	sealed, err := kmsSealer(t, s.Endpoint).Seal(ctx, scope, secret)
	if err != nil {
		t.Fatal(err)
	}
	if sealed.KeyRef != kmsseal.KMSPrefix+devstack.KMSKeyARN {
		t.Errorf("key ref %q, want %q", sealed.KeyRef, kmsseal.KMSPrefix+devstack.KMSKeyARN)
	}
	if got, err := kmsSealer(t, s.Endpoint).Open(ctx, scope, sealed); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("open: %x, %v", got, err)
	}
	other := webhook.Scope{WorkspaceID: "ws_other", Environment: auth.Sandbox}
	if _, err := kmsSealer(t, s.Endpoint).Open(ctx, other, sealed); err == nil {
		t.Error("opened under another scope")
	}
	var invalid interface{ ErrorCode() string }
	cfg, _ := devstack.AWSConfig(ctx, "", "")
	_, err = devstack.KMSClient(cfg, s.Endpoint).Decrypt(ctx, &kms.DecryptInput{CiphertextBlob: sealed.Ciphertext, KeyId: aws.String(devstack.KMSKeyARN)})
	if !errors.As(err, &invalid) || invalid.ErrorCode() != "InvalidCiphertextException" {
		t.Errorf("decrypt without the context: %v", err)
	}

	// Paused: the call fails within its bound; resumed: it answers.
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = kmsSealer(t, s.Endpoint).Open(ctx, scope, sealed)
	took := time.Since(start)
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	if err == nil || took > 4*time.Second {
		t.Errorf("open against a paused local-kms: %v after %s", err, took)
	}
	if got, err := kmsSealer(t, s.Endpoint).Open(ctx, scope, sealed); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("open after resume: %x, %v", got, err)
	}

	// Restarted on the same data dir (a new seed file, a new random backing key): the key
	// kept its material, so the secret still opens.
	s.Stop()
	s2 := startKMS(t, dir)
	if got, err := kmsSealer(t, s2.Endpoint).Open(ctx, scope, sealed); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("open after restart: %x, %v", got, err)
	}
}
