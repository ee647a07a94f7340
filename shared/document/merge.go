package document

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/takapay/payments/shared/foundation/jsonbody"
)

// MergePatch applies the RFC 7396 JSON merge patch patch to the JSON text target and returns
// the result as compact JSON: a null member deletes, an object member merges recursively into
// an object (or replaces anything else), and every other value, arrays included, replaces the
// target's member whole. The patch must be a JSON object without repeated member names (a
// repeated name is an error naming its path from "body", the request body being the patch);
// a target that is not an object is treated as {}. Numbers keep their exact text and nothing
// is HTML-escaped.
func MergePatch(target, patch []byte) ([]byte, error) {
	p, err := mergeDecode(patch)
	if err != nil {
		return nil, fmt.Errorf("merge patch: %w", err)
	}
	pobj, ok := p.(map[string]any)
	if !ok {
		return nil, errors.New("merge patch: the patch must be a JSON object")
	}
	if dup := jsonbody.FirstDuplicate(patch, "body"); dup != "" {
		return nil, fmt.Errorf("merge patch: %s appears more than once", dup)
	}
	t, err := mergeDecode(target)
	if err != nil {
		return nil, fmt.Errorf("merge patch target: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(mergeValue(t, pobj)); err != nil {
		return nil, fmt.Errorf("merge patch: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// mergeDecode decodes exactly one JSON value, keeping numbers as json.Number.
func mergeDecode(text []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, errors.New("not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// mergeValue is RFC 7396's MergePatch(Target, Patch) on decoded values; it may reuse (and
// change) target's maps.
func mergeValue(target, patch any) any {
	pobj, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tobj, ok := target.(map[string]any)
	if !ok {
		tobj = map[string]any{}
	}
	for name, value := range pobj {
		if value == nil {
			delete(tobj, name)
			continue
		}
		tobj[name] = mergeValue(tobj[name], value)
	}
	return tobj
}
