package refundapi

import (
	"time"

	"github.com/takapay/payments/shared/refund"
)

// ListView is a page of refunds (components.schemas.RefundList): next_cursor null on the last.
type ListView struct {
	Items      []refund.Resource `json:"items"`
	NextCursor *string           `json:"next_cursor"`
}

// EncodeList is a page as shown at now.
func EncodeList(p refund.Page, now time.Time) ListView {
	out := ListView{Items: make([]refund.Resource, 0, len(p.Refunds))}
	for _, r := range p.Refunds {
		out.Items = append(out.Items, r.Resource(now))
	}
	if p.NextCursor != "" {
		c := p.NextCursor
		out.NextCursor = &c
	}
	return out
}

func (a *API) now() time.Time {
	if a.Refunds.Now != nil {
		return a.Refunds.Now()
	}
	return time.Now()
}
