package apierr

import (
	"errors"
	"strconv"
	"time"
)

// Field returns a VALIDATION_FAILED error of one input as a rule states it: the violation
// names the field (Path) and the broken rule as an identifier ("min_length", "format") that a
// page words in its own language; message is the English sentence, shown when the page has no
// words of its own.
func Field(path, rule, message string) *Error {
	return &Error{Code: ValidationFailed, Message: message, Violations: []Violation{{Path: path, Rule: rule}}}
}

// FieldOf returns the first violation of a VALIDATION_FAILED error in err's chain, with the
// error (ok false for any other error).
func FieldOf(err error) (e *Error, v Violation, ok bool) {
	if !errors.As(err, &e) || e.Code != ValidationFailed || len(e.Violations) == 0 {
		return nil, Violation{}, false
	}
	return e, e.Violations[0], true
}

// Limited returns a RATE_LIMITED error that says when to retry: Retry-After in whole seconds,
// rounded up, at least 1.
func Limited(wait time.Duration, format string, args ...any) *Error {
	e := New(RateLimited, format, args...)
	secs := max(1, int((wait+time.Second-1)/time.Second))
	e.Headers = map[string]string{"Retry-After": strconv.Itoa(secs)}
	return e
}

// RetryAfter is the wait a RATE_LIMITED error's Retry-After names (0 without one).
func (e *Error) RetryAfter() time.Duration {
	secs, err := strconv.Atoi(e.Headers["Retry-After"])
	if err != nil || secs < 0 {
		return 0
	}
	return time.Duration(secs) * time.Second
}
