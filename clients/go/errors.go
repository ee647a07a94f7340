package takapay

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// APIError is an error answer of the API: its HTTP status and its error envelope
// ({"error": {"code", "message", "retryable", "correlation_id"}}). (The contract's envelope
// schema is the generated type Error.)
type APIError struct {
	Status        int
	Code          string
	Message       string
	Retryable     bool
	CorrelationID string
	// Attempts is how many attempts the call made (the last one got this answer).
	Attempts int
	// Header is the answer's headers (Retry-After, Allow, X-Correlation-Id).
	Header http.Header
}

func (e *APIError) Error() string {
	return fmt.Sprintf("takapay: %d %s: %s (correlation_id %s)", e.Status, e.Code, e.Message, e.CorrelationID)
}

// AsAPIError is the *APIError in err's chain, or nil.
func AsAPIError(err error) *APIError {
	var e *APIError
	if errors.As(err, &e) {
		return e
	}
	return nil
}

func newAPIError(status int, header http.Header, body []byte, attempts int) *APIError {
	e := &APIError{Status: status, Attempts: attempts, Header: header, CorrelationID: header.Get("X-Correlation-Id")}
	var env Error
	if err := json.Unmarshal(body, &env); err == nil && env.Error.Code != "" {
		e.Code = string(env.Error.Code)
		e.Message = env.Error.Message
		e.Retryable = env.Error.Retryable
		if env.Error.CorrelationId != "" {
			e.CorrelationID = env.Error.CorrelationId
		}
	} else {
		e.Code = "HTTP_" + fmt.Sprint(status)
		e.Message = http.StatusText(status)
		e.Retryable = status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
	}
	return e
}
