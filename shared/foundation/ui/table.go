package ui

import "github.com/takapay/payments/shared/foundation/h"

// Column is a table column: its header text and its cells' class ("" for none; "num" right-
// aligns amounts on a wide screen).
type Column struct {
	Head  string
	Class string
}

// Row is one table row: one cell per column, in column order; ID is the row's id ("" for
// none).
type Row struct {
	ID    string
	Cells []h.Node
}

// Table is a data table that reads as cards on a phone: below 40em each row is a card and
// each cell shows its column's header before it (data-label, drawn by the stylesheet; the
// header row stays in the markup for assistive technology). Callers order the columns as a
// shop owner reads them: reference, amount, status, date first, ids last. The table is named
// by its caption.
func Table(id, caption string, cols []Column, rows []Row) h.Node {
	return h.Div(h.Class("table-wrap"),
		h.Table(h.Class("cards"), h.ID(id),
			h.Caption(h.Text(caption)),
			h.Thead(h.Tr(h.Map(cols, func(c Column) h.Node {
				return h.Th(h.Attr("scope", "col"), h.Class(c.Class), h.Text(c.Head))
			}))),
			h.Tbody(h.Map(rows, func(r Row) h.Node {
				cells := make(h.Group, 0, len(r.Cells))
				for i, c := range r.Cells {
					col := Column{}
					if i < len(cols) {
						col = cols[i]
					}
					cells = append(cells, h.Td(h.Class(col.Class), h.Data("label", col.Head), c))
				}
				return h.Tr(h.ID(r.ID), cells)
			})),
		))
}
