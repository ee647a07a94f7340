package dynamo

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

func TestIntentsKey(t *testing.T) {
	ws := "0195f3a4-0000-7000-8000-00000000000a"
	pk := intentsPK(ws, auth.Sandbox)
	if pk != "INTENTS#"+ws+"#sandbox" {
		t.Fatalf("intentsPK = %q", pk)
	}
	if w, env := parseIntentsPK(pk); w != ws || env != auth.Sandbox {
		t.Fatalf("parseIntentsPK(%q) = %q, %q", pk, w, env)
	}
	for _, bad := range []string{"", "INTENTS#", "OUTBOX#12", ws + "#sandbox"} {
		if w, env := parseIntentsPK(bad); w != "" || env != "" {
			t.Errorf("parseIntentsPK(%q) = %q, %q; want nothing", bad, w, env)
		}
	}
}

// A payment stores its workspace and environment once, in gsi3pk; one written before GSI3
// (workspace_id and environment attributes, no gsi3pk) still reads the same.
func TestPaymentWorkspaceFromEitherLayout(t *testing.T) {
	s, ctx := newStore(t)
	now := time.Now().UTC().Truncate(time.Microsecond)
	p := &payment.Payment{InvoiceID: "0195f3a4-2222-7000-8000-000000000001", WorkspaceID: "0195f3a4-0000-7000-8000-00000000000a",
		Environment: auth.Sandbox, Status: payment.Pending, AmountMinor: 100, Currency: "BDT", Reference: "r",
		CheckoutHash: []byte{1}, RequestHash: "00", CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if _, err := s.CreatePayment(ctx, p); err != nil {
		t.Fatal(err)
	}
	raw, err := s.get(ctx, paymentPK(p.InvoiceID), "PAY")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["workspace_id"]; ok {
		t.Errorf("a new payment stores workspace_id beside gsi3pk: %v", raw["workspace_id"])
	}
	got, err := s.GetPayment(ctx, p.InvoiceID)
	if err != nil || got.WorkspaceID != p.WorkspaceID || got.Environment != auth.Sandbox {
		t.Fatalf("new layout: %+v %v", got, err)
	}

	// The layout before: workspace_id and environment, no gsi3pk.
	delete(raw, "gsi3pk")
	raw["pk"] = &types.AttributeValueMemberS{Value: paymentPK("0195f3a4-2222-7000-8000-000000000002")}
	raw["workspace_id"] = &types.AttributeValueMemberS{Value: "0195f3a4-0000-7000-8000-00000000000b"}
	raw["environment"] = &types.AttributeValueMemberS{Value: "live"}
	if _, err := s.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: raw}); err != nil {
		t.Fatal(err)
	}
	old, err := s.GetPayment(ctx, "0195f3a4-2222-7000-8000-000000000002")
	if err != nil || old.WorkspaceID != "0195f3a4-0000-7000-8000-00000000000b" || old.Environment != auth.Live {
		t.Fatalf("old layout: %+v %v", old, err)
	}
}

var _ intent.Ledger = (*Store)(nil)
