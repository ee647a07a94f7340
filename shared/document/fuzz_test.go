package document

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// fuzzMaxInput bounds the inputs the fuzz targets look at.
const fuzzMaxInput = 4096

func FuzzParseBody(f *testing.F) {
	f.Add([]byte(fullBody))
	for _, c := range BoundCases {
		if len(c.Valid) <= fuzzMaxInput {
			f.Add([]byte(c.Valid))
		}
		if len(c.Invalid) <= fuzzMaxInput {
			f.Add([]byte(c.Invalid))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > fuzzMaxInput || !json.Valid(raw) {
			t.Skip()
		}
		b, vs := ParseBody(raw, "body")
		for _, v := range vs {
			if !strings.HasPrefix(v.Path, "body") || v.Rule == "" {
				t.Fatalf("bad violation %#v", v)
			}
		}
		if len(vs) > 0 {
			if b != nil {
				t.Fatalf("body returned with violations %v", vs)
			}
			return
		}
		if b == nil {
			t.Fatal("no body and no violations")
		}
		canon := b.Canonical()
		var generic any
		if err := json.Unmarshal(canon, &generic); err != nil {
			t.Fatalf("Canonical %q is not JSON: %v", canon, err)
		}
		again, vs := ParseBody(canon, "body")
		if len(vs) > 0 {
			t.Fatalf("Canonical %q has violations %v (input %q)", canon, vs, raw)
		}
		if got := again.Canonical(); !bytes.Equal(got, canon) {
			t.Fatalf("Canonical not stable:\n%q\n%q", canon, got)
		}
	})
}

func FuzzMergePatch(f *testing.F) {
	f.Add([]byte(`{"a":"b"}`), []byte(`{"a":null,"c":{"d":1}}`))
	f.Add([]byte(`{"a":{"b":"c"}}`), []byte(`{"a":{"b":"d","c":null}}`))
	f.Add([]byte(`[1,2]`), []byte(`{"a":[1,{"b":null}]}`))
	f.Add([]byte(`{}`), []byte(`{"a":{"bb":{"ccc":null}}}`))
	f.Add([]byte(`{"n":1.50}`), []byte(`{"a":1,"a":2}`))
	f.Add([]byte(fullBody), []byte(`{"name":null,"tags":["x"],"items":[{"title":"t","quantity":1,"unit_amount_minor":1}]}`))
	f.Add([]byte(`{}`), []byte(`"x"`))
	f.Fuzz(func(t *testing.T, target, patch []byte) {
		if len(target) > fuzzMaxInput || len(patch) > fuzzMaxInput {
			t.Skip()
		}
		got, err := MergePatch(target, patch)
		if err != nil {
			if got != nil {
				t.Fatalf("result %q with error %v", got, err)
			}
			return
		}
		if !json.Valid(got) {
			t.Fatalf("result %q is not JSON", got)
		}
		// A merge patch is idempotent.
		again, err := MergePatch(got, patch)
		if err != nil {
			t.Fatalf("second application: %v", err)
		}
		if !bytes.Equal(again, got) {
			t.Fatalf("not idempotent:\n%q\n%q", got, again)
		}
	})
}
