package openapi

import "testing"

func TestContractParses(t *testing.T) {
	ops, err := Operations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 103 {
		t.Errorf("operations = %d, want the 103 the specification publishes", len(ops))
	}
	seen := map[string]bool{}
	for _, op := range ops {
		if op.OperationID == "" || seen[op.OperationID] {
			t.Errorf("%s %s: operationId %q missing or repeated", op.Method, op.Path, op.OperationID)
		}
		seen[op.OperationID] = true
	}
}

func TestLookup(t *testing.T) {
	cases := []struct {
		method, path string
		wantID       string
		deployed     bool
		allowed      int
	}{
		{"POST", "/v1/payment/create", "createPayment", true, 0},
		{"GET", "/v1/payment/create", "", false, 1},
		{"POST", "/v1/workspaces/0b7e/refunds/r1/approve", "approveRefund", true, 0},
		{"GET", "/v1/workspaces/0b7e/reports", "getWorkspacesWorkspaceidReports", false, 0},
		{"DELETE", "/v1/workspaces/w/refunds", "", false, 2},
		{"GET", "/v1/workspaces//refunds", "", false, 0},
		{"GET", "/nope", "", false, 0},
	}
	for _, c := range cases {
		op, allowed, err := Lookup(c.method, c.path)
		if err != nil {
			t.Fatal(err)
		}
		gotID := ""
		if op != nil {
			gotID = op.OperationID
			if op.Deployed != c.deployed {
				t.Errorf("%s %s deployed = %v", c.method, c.path, op.Deployed)
			}
		}
		if gotID != c.wantID || len(allowed) != c.allowed {
			t.Errorf("%s %s = %q allowed %v; want %q with %d allowed", c.method, c.path, gotID, allowed, c.wantID, c.allowed)
		}
	}
}
