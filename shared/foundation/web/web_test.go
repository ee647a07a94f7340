package web

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// JSONBody takes only application/json; MergePatchBody (the PATCH routes) takes RFC 7396's
// application/merge-patch+json too. Any parameters and any case are fine; any other media type
// is 400 MALFORMED_REQUEST before the handler runs; a body with no Content-Type is read as JSON.
func TestBodyMediaTypes(t *testing.T) {
	for _, c := range []struct {
		contentType      string
		json, mergePatch bool
	}{
		{"application/json", true, true},
		{"Application/JSON; charset=utf-8", true, true},
		{"application/merge-patch+json", false, true},
		{" application/merge-patch+json ; charset=UTF-8", false, true},
		{"text/plain", false, false},
		{"application/x-www-form-urlencoded", false, false},
		{"application/json-patch+json", false, false},
		{"", false, false}, // present but empty
	} {
		for _, w := range []struct {
			name string
			wrap func(HandlerFunc) HandlerFunc
			ok   bool
			want string
		}{
			{"JSONBody", JSONBody, c.json, "Content-Type must be application/json, not"},
			{"MergePatchBody", MergePatchBody, c.mergePatch, "Content-Type must be application/json or application/merge-patch+json, not"},
		} {
			ran := false
			h := w.wrap(func(context.Context, *Request) (*Response, error) { ran = true; return JSON(200, nil), nil })
			_, err := h(context.Background(), &Request{Headers: map[string]string{"content-type": c.contentType}, Body: []byte(`{}`)})
			var ae *apierr.Error
			if w.ok != ran || w.ok != (err == nil) {
				t.Errorf("%s with %q: ran %v, err %v", w.name, c.contentType, ran, err)
			} else if !w.ok && (!errors.As(err, &ae) || ae.Code != apierr.MalformedRequest || !strings.Contains(ae.Message, w.want)) {
				t.Errorf("%s with %q: %v, want MALFORMED_REQUEST %q", w.name, c.contentType, err, w.want)
			}
		}
	}
	// No Content-Type at all: read as JSON by both.
	for _, wrap := range []func(HandlerFunc) HandlerFunc{JSONBody, MergePatchBody} {
		ran := false
		h := wrap(func(context.Context, *Request) (*Response, error) { ran = true; return JSON(200, nil), nil })
		if _, err := h(context.Background(), &Request{Body: []byte(`{}`)}); err != nil || !ran {
			t.Errorf("no Content-Type: ran %v, err %v", ran, err)
		}
	}
}
