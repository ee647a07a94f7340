package dashboard

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/export"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/refund"
)

// The export (DashboardExportFunction): a form of two Dhaka days and the CSV of the
// workspace's payments in the page's environment created from the first day's midnight to
// the last day's end, one row per payment (package export: the columns, quoting, the formula
// guard). Every role may export, the viewer too: the file holds what the viewer already sees
// on the payments pages, and making it changes nothing (it is recorded in the activity log,
// which admins and owners read). The response is buffered (API Gateway's HTTP API and Lambda
// do not stream it), so the rows are written through gzip when the browser accepts it and a
// range whose body would pass the 6 MB response limit is refused (422) with a suggestion to
// choose fewer days.

// ExportRecorder records an export in the workspace's activity log (package activity).
type ExportRecorder interface {
	RecordExport(ctx context.Context, a Actor, target string)
}

// ExportPage is GET /dashboard/export: the form.
func (s *Service) ExportPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		today := s.now().In(export.Dhaka)
		f := &form{values: map[string]string{
			"from": today.AddDate(0, 0, -6).Format(export.DayLayout),
			"to":   today.Format(export.DayLayout),
			"what": "payments",
		}}
		return s.exportPage(r, 200, f), nil
	})(ctx, wr)
}

// ExportCSV is GET /dashboard/export.csv?from=YYYY-MM-DD&to=YYYY-MM-DD: the file, or the
// form again with the problem (422).
func (s *Service) ExportCSV(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		if s.Payments == nil {
			return nil, errors.New("dashboard: export without a payments store")
		}
		now := s.now()
		f := &form{values: map[string]string{"from": strings.TrimSpace(r.Query["from"]), "to": strings.TrimSpace(r.Query["to"]),
			"what": strings.TrimSpace(r.Query["what"])}}
		rng, errs := export.ParseRange(f.values["from"], f.values["to"], now)
		for _, e := range errs {
			rule := e.Rule
			if rule == "date" && f.values[e.Field] == "" {
				rule = "required" // a day not chosen (a Bangla form is not checked by the browser)
			}
			f.fail(e.Field, t(r.l(), "dash.export.err."+rule, "days", r.l().Number(export.MaxDays)))
		}
		if w := f.values["what"]; w != "" && w != "payments" && (w != "refunds" || s.Refunds == nil) {
			f.fail("what", t(r.l(), "dash.export.err.what"))
		}
		if f.failed() {
			return s.exportPage(r, 422, f), nil
		}
		env := r.env()
		gz := acceptsGzip(r.Header("Accept-Encoding"))
		body, name, err := s.exportBody(ctx, r, f.values["what"], rng, now, gz)
		if errors.Is(err, export.ErrTooLarge) {
			f.fail("from", t(r.l(), "dash.export.too_large"))
			return s.exportPage(r, 422, f), nil
		}
		if err != nil {
			return nil, err
		}
		if s.Exports != nil {
			what := "payments"
			if f.values["what"] == "refunds" {
				what = "refunds"
			}
			s.Exports.RecordExport(ctx, r.viewer.actor(r), string(env)+" "+what+" "+f.values["from"]+" to "+f.values["to"]+
				" ("+itoa(body.Rows)+" rows)")
		}
		h := s.headers(map[string]string{
			"Content-Type":        export.ContentType,
			"Content-Disposition": `attachment; filename="` + name + `"`,
			"Vary":                "Accept-Encoding",
		})
		if gz {
			h["Content-Encoding"] = "gzip"
		}
		return &web.Response{Status: 200, Headers: h, Raw: body.Bytes, Binary: gz, Cookies: r.setCookie}, nil
	})(ctx, wr)
}

// exportBody builds the file of what ("refunds", else the payments) for rng, and its name.
// Refunds are read through the refund rules (refund.Allowed: whoever may read refunds), their
// reasons named in both languages from the refund pages' catalogue.
func (s *Service) exportBody(ctx context.Context, r *req, what string, rng export.Range, now time.Time, gz bool) (*export.Body, string, error) {
	env := r.env()
	last := rng.To.AddDate(0, 0, -1)
	if what != "refunds" {
		body, err := export.Build(ctx, s.Payments, export.Query{WorkspaceID: r.viewer.ws.WorkspaceID, Environment: env,
			From: rng.From, To: rng.To}, now, gz, export.MaxResponseBody)
		return body, export.Filename(string(env), rng.From, last), err
	}
	if err := r.needRefund(refund.OpRead); err != nil {
		return nil, "", err
	}
	sc := refund.Scope{WorkspaceID: r.viewer.ws.WorkspaceID, Environment: env, By: r.viewer.user.UserID}
	list := func(ctx context.Context, cursor string) (refund.Page, error) {
		return s.Refunds.List(ctx, sc, refund.ListQuery{Cursor: cursor, Limit: refund.MaxLimit})
	}
	words := func(rs refund.Reason) (string, string) {
		return t(page.EN, "dash.refund.reason."+string(rs)), t(page.BN, "dash.refund.reason."+string(rs))
	}
	body, err := export.BuildRefunds(ctx, list, rng, words, gz, export.MaxResponseBody)
	return body, export.RefundsFilename(string(env), rng.From, last), err
}

// acceptsGzip reads Accept-Encoding: gzip (or *) listed without q=0.
func acceptsGzip(h string) bool {
	for part := range strings.SplitSeq(h, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		if strings.HasPrefix(q, "q=0") && strings.Trim(strings.TrimPrefix(q, "q=0"), ".0") == "" {
			continue
		}
		return true
	}
	return false
}

func (s *Service) exportPage(r *req, status int, f *form) *web.Response {
	return s.page(r, status, t(r.l(), "dash.export.title"), func(d *doc) {
		d.node(
			h.P(h.Class("hint"), h.Text(d.t("dash.export.intro", "env", d.t("dash.overview.env."+string(r.env()))))), newline,
			d.errorSummaryNode(f, "export-"), newline,
			// A GET form: the browser replaces the action's query with the fields, so the
			// environment and an explicit language travel as hidden fields.
			h.Form(h.Method("get"), h.ID("export-form"), h.Action("/dashboard/export.csv"), d.banglaNoValidate(),
				h.If(r.env() == auth.Live, ui.Hidden("env", "live")),
				h.If(r.lang.Explicit, ui.Hidden(page.QueryParam, string(r.l()))),
				d.exportDay(f, "from", "export-from", "dash.export.from"), newline,
				d.exportDay(f, "to", "export-to", "dash.export.to"), newline,
				h.If(s.Refunds != nil, d.choice(f, "what", "dash.export.what", [][2]string{
					{"payments", "dash.export.what.payments"}, {"refunds", "dash.export.what.refunds"}})), newline,
				h.P(h.Class("hint"), h.ID("export-hint"), h.Text(d.t("dash.export.hint", "days", d.l.Number(export.MaxDays)))),
				ui.Submit("export-submit", d.t("dash.export.submit")),
			), newline,
		)
	})
}

// exportDay is a labelled date input with its error, described by its error and the form's
// one hint (export-hint).
func (d *doc) exportDay(f *form, name, id, labelKey string) h.Node {
	return ui.Field{Name: name, ID: id, Label: d.t(labelKey), Error: f.err(name),
		Control: func(id, describedBy string) h.Node {
			return h.Input(h.Class("field"), h.Type("date"), h.Required(true), h.ID(id), h.Name(name), h.Value(f.value(name)),
				h.If(f.err(name) != "", h.Attr("aria-invalid", "true")),
				h.Aria("describedby", strings.TrimSpace(describedBy+" export-hint")))
		}}
}
