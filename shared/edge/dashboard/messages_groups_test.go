package dashboard

// The tests render every page group, as the functions that register them do.
func init() {
	UseMessages(CustomersMessages(), DocFormMessages(), DocumentsMessages(), HomeExportMessages(), PaymentsMessages(), RefundsMessages(), WebhooksMessages())
}
