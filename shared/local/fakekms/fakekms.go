// Package fakekms is a stand-in for AWS KMS over HTTP, for tests: no KMS emulator installs
// here, so the real KMS client (service/kms) is pointed at this server and its signing,
// serialization, retries and error mapping all run. It speaks the awsJson1_1 protocol of KMS
// (POST /, X-Amz-Target: TrentService.<Op>, application/x-amz-json-1.1) for Encrypt and
// Decrypt, answering as KMS does: the request and answer members, the error types
// (__type) and their status codes. It verifies each request's SigV4 signature, binds the
// encryption context to the ciphertext (a Decrypt with another context fails with
// InvalidCiphertextException, as in KMS), records every request and can inject faults.
//
// Local tooling: no Lambda links it.
package fakekms

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/google/uuid"
)

// Default identity the fake expects requests to be signed with (Start).
const (
	Region          = "ap-south-1"
	AccountID       = "111122223333"
	AccessKeyID     = "AKIDFAKEKMS"
	SecretAccessKey = "fake-kms-secret"
)

// Identity is the region and credentials a server checks signatures against.
type Identity struct {
	Region, AccessKeyID, SecretAccessKey string
}

// Request is one request the server answered.
type Request struct {
	// Op is the operation: "Encrypt", "Decrypt", ...
	Op string
	// KeyID is the request's KeyId member as sent ("" when absent).
	KeyID string
	// EncryptionContext is the request's EncryptionContext member.
	EncryptionContext map[string]string
	// Status is the HTTP status of the answer; Error its __type when it failed.
	Status int
	Error  string
}

type key struct {
	arn   string
	alias string
	aead  cipher.AEAD
}

type fault struct {
	op      string
	status  int
	errType string
}

// Server is a running fake KMS with one symmetric encryption key (more with NewKey).
type Server struct {
	// URL is the endpoint (the client's BaseEndpoint).
	URL string
	// KeyARN and Alias name the first key.
	KeyARN string
	Alias  string
	// Identity is what requests must be signed with.
	Identity Identity

	srv    *httptest.Server
	mu     sync.Mutex
	keys   map[string]*key // key id (UUID) -> key
	reqs   []Request
	faults []fault
}

// Start starts a server that checks the default identity and stops when tb ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	return StartWith(tb, Identity{Region: Region, AccessKeyID: AccessKeyID, SecretAccessKey: SecretAccessKey})
}

// StartWith starts a server that checks signatures against id (e.g. the local stack's
// dummy credentials, so the stack's clients reach it) and stops when tb ends.
func StartWith(tb testing.TB, id Identity) *Server {
	tb.Helper()
	s := &Server{keys: map[string]*key{}, Identity: id}
	s.KeyARN = s.NewKey("alias/takapay-webhook-secrets")
	s.Alias = "alias/takapay-webhook-secrets"
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	tb.Cleanup(s.srv.Close)
	return s
}

// NewKey adds a symmetric key (with an alias, if not empty) and returns its ARN.
func (s *Server) NewKey(alias string) string {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		panic(err)
	}
	block, _ := aes.NewCipher(raw)
	aead, _ := cipher.NewGCM(block)
	id := uuid.NewString()
	k := &key{arn: "arn:aws:kms:" + s.Identity.Region + ":" + AccountID + ":key/" + id, alias: alias, aead: aead}
	s.mu.Lock()
	s.keys[id] = k
	s.mu.Unlock()
	return k.arn
}

// AWSConfig is a configuration whose KMS clients reach this server with the credentials and
// region it checks signatures against.
func (s *Server) AWSConfig() aws.Config {
	cfg := aws.Config{
		Region:      s.Identity.Region,
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(s.Identity.AccessKeyID, s.Identity.SecretAccessKey, "")),
	}
	cfg.ServiceOptions = append(cfg.ServiceOptions, func(_ string, options any) {
		if o, ok := options.(*kms.Options); ok {
			o.BaseEndpoint = aws.String(s.URL)
		}
	})
	return cfg
}

// Requests returns every request answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// Count returns how many requests of an operation were answered (any outcome).
func (s *Server) Count(op string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Op == op {
			n++
		}
	}
	return n
}

// Fail makes the next n requests of op ("" for any) fail with status and the error type
// errType (e.g. 500 "KMSInternalException", 400 "ThrottlingException", 400
// "AccessDeniedException").
func (s *Server) Fail(op string, n int, status int, errType string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults = append(s.faults, fault{op: op, status: status, errType: errType})
	}
}

// resolve finds a key by key id, key ARN, alias name or alias ARN.
func (s *Server) resolve(keyID string) *key {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, k := range s.keys {
		if keyID == id || keyID == k.arn || (k.alias != "" &&
			(keyID == k.alias || keyID == "arn:aws:kms:"+s.Identity.Region+":"+AccountID+":"+k.alias)) {
			return k
		}
	}
	return nil
}

type kmsError struct {
	status  int
	errType string
	message string
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	op, _ := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "TrentService.")
	var in struct {
		KeyID             string            `json:"KeyId"`
		Plaintext         []byte            `json:"Plaintext"`
		CiphertextBlob    []byte            `json:"CiphertextBlob"`
		EncryptionContext map[string]string `json:"EncryptionContext"`
	}
	rec := Request{Op: op}
	out, kerr := func() (any, *kmsError) {
		if r.Method != http.MethodPost || r.URL.Path != "/" || r.Header.Get("Content-Type") != "application/x-amz-json-1.1" {
			return nil, &kmsError{400, "UnknownOperationException", "not an awsJson1_1 request"}
		}
		if msg := checkSignature(r, body, s.Identity); msg != "" {
			return nil, &kmsError{400, "InvalidSignatureException", msg}
		}
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, &kmsError{400, "SerializationException", err.Error()}
		}
		rec.KeyID, rec.EncryptionContext = in.KeyID, in.EncryptionContext
		if f, ok := s.takeFault(op); ok {
			return nil, &kmsError{f.status, f.errType, "injected fault"}
		}
		switch op {
		case "Encrypt":
			return s.encrypt(in.KeyID, in.Plaintext, in.EncryptionContext)
		case "Decrypt":
			return s.decrypt(in.KeyID, in.CiphertextBlob, in.EncryptionContext)
		}
		return nil, &kmsError{400, "UnknownOperationException", "operation " + op + " is not implemented by fakekms"}
	}()
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-RequestId", uuid.NewString())
	if kerr != nil {
		rec.Status, rec.Error = kerr.status, kerr.errType
		s.record(rec)
		w.WriteHeader(kerr.status)
		_ = json.NewEncoder(w).Encode(map[string]string{"__type": kerr.errType, "message": kerr.message})
		return
	}
	rec.Status = http.StatusOK
	s.record(rec)
	_ = json.NewEncoder(w).Encode(out)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
}

func (s *Server) takeFault(op string) (fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.op == "" || f.op == op {
			s.faults = slices.Delete(s.faults, i, i+1)
			return f, true
		}
	}
	return fault{}, false
}

// Ciphertext blob: "FKMS1" | key id (36 bytes) | nonce (12) | AES-256-GCM(plaintext, context).
const blobMagic = "FKMS1"

// contextAAD is the encryption context in a canonical form: KMS compares it exactly
// (case-sensitive keys and values, order ignored).
func contextAAD(ec map[string]string) []byte {
	keys := make([]string, 0, len(ec))
	for k := range ec {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b []byte
	for _, k := range keys {
		b = fmt.Appendf(b, "%d:%s=%d:%s;", len(k), k, len(ec[k]), ec[k])
	}
	return b
}

func (s *Server) encrypt(keyID string, plaintext []byte, ec map[string]string) (any, *kmsError) {
	k := s.resolve(keyID)
	switch {
	case keyID == "":
		return nil, &kmsError{400, "ValidationException", "1 validation error detected: Value null at 'keyId' failed to satisfy constraint: Member must not be null"}
	case k == nil:
		return nil, &kmsError{400, "NotFoundException", "Key '" + keyID + "' does not exist"}
	case len(plaintext) == 0 || len(plaintext) > 4096:
		return nil, &kmsError{400, "ValidationException", "plaintext must be 1 to 4096 bytes"}
	}
	id := k.arn[strings.LastIndexByte(k.arn, '/')+1:]
	nonce := make([]byte, 12)
	_, _ = rand.Read(nonce)
	blob := append([]byte(blobMagic+id), nonce...)
	blob = k.aead.Seal(blob, nonce, plaintext, contextAAD(ec))
	return map[string]any{"CiphertextBlob": blob, "KeyId": k.arn, "EncryptionAlgorithm": "SYMMETRIC_DEFAULT"}, nil
}

func (s *Server) decrypt(keyID string, blob []byte, ec map[string]string) (any, *kmsError) {
	invalid := &kmsError{400, "InvalidCiphertextException", ""}
	if len(blob) < len(blobMagic)+36+12+16 || string(blob[:len(blobMagic)]) != blobMagic {
		return nil, invalid
	}
	id := string(blob[len(blobMagic) : len(blobMagic)+36])
	s.mu.Lock()
	k := s.keys[id]
	s.mu.Unlock()
	if k == nil {
		return nil, invalid
	}
	if keyID != "" {
		named := s.resolve(keyID)
		if named == nil {
			return nil, &kmsError{400, "NotFoundException", "Key '" + keyID + "' does not exist"}
		}
		if named != k {
			return nil, &kmsError{400, "IncorrectKeyException", "The key ID in the request does not identify a KMS key that can perform this operation."}
		}
	}
	rest := blob[len(blobMagic)+36:]
	plaintext, err := k.aead.Open(nil, rest[:12], rest[12:], contextAAD(ec))
	if err != nil {
		return nil, invalid // another encryption context, or a tampered blob
	}
	return map[string]any{"Plaintext": plaintext, "KeyId": k.arn, "EncryptionAlgorithm": "SYMMETRIC_DEFAULT"}, nil
}

// checkSignature verifies an AWS Signature Version 4 header signature for service "kms"
// with the fake's credentials; it returns why it fails, or "".
func checkSignature(r *http.Request, body []byte, id Identity) string {
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return "missing or non-SigV4 Authorization header"
	}
	parts := map[string]string{}
	for p := range strings.SplitSeq(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		parts[k] = v
	}
	cred := strings.Split(parts["Credential"], "/")
	if len(cred) != 5 || cred[0] != id.AccessKeyID || cred[2] != id.Region || cred[3] != "kms" || cred[4] != "aws4_request" {
		return "credential scope " + parts["Credential"] + " is not " + id.AccessKeyID + "/<date>/" + id.Region + "/kms/aws4_request"
	}
	amzDate := r.Header.Get("X-Amz-Date")
	if len(amzDate) != 16 || amzDate[:8] != cred[1] {
		return "X-Amz-Date does not match the credential scope"
	}
	signed := strings.Split(parts["SignedHeaders"], ";")
	for _, must := range []string{"host", "x-amz-date", "x-amz-target", "content-type"} {
		if !slices.Contains(signed, must) {
			return "SignedHeaders lacks " + must
		}
	}
	var canon strings.Builder
	for _, h := range signed {
		var v string
		switch h {
		case "host":
			v = r.Host
		case "content-length":
			v = strconv.FormatInt(r.ContentLength, 10)
		default:
			v = strings.Join(r.Header.Values(h), ",")
		}
		canon.WriteString(h + ":" + strings.Join(strings.Fields(v), " ") + "\n")
	}
	payload := sha256.Sum256(body)
	creq := strings.Join([]string{r.Method, "/", r.URL.RawQuery, canon.String(), parts["SignedHeaders"], hex.EncodeToString(payload[:])}, "\n")
	creqHash := sha256.Sum256([]byte(creq))
	scope := strings.Join(cred[1:], "/")
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(creqHash[:])
	k := []byte("AWS4" + id.SecretAccessKey)
	for _, s := range []string{cred[1], id.Region, "kms", "aws4_request"} {
		k = hmacSHA256(k, s)
	}
	if want := hex.EncodeToString(hmacSHA256(k, toSign)); !hmac.Equal([]byte(want), []byte(parts["Signature"])) {
		return "The request signature we calculated does not match the signature you provided."
	}
	return ""
}

func hmacSHA256(key []byte, s string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(s))
	return h.Sum(nil)
}
