package auth

// Permission is something a dashboard user may do in a workspace. Role.Can is the one home of
// the rule "what a role allows": the dashboard shows a person only what Can allows, and every
// dashboard handler checks Can again on the server before acting.
type Permission string

// The dashboard permissions.
const (
	// ViewWorkspace: see the workspace, its payments, payment intents and documents.
	ViewWorkspace Permission = "workspace:view"
	// WriteDocuments: create, change and issue documents and payment intents.
	WriteDocuments Permission = "documents:write"
	// ViewKeys: see the API key list and webhook signing secrets' metadata (never a secret).
	ViewKeys Permission = "keys:view"
	// ManageKeys: create, revoke and roll API keys; issue and roll webhook signing secrets.
	ManageKeys Permission = "keys:manage"
	// ManageTeam: invite people, change roles (never to or from owner) and remove members.
	ManageTeam Permission = "team:manage"
	// ViewActivity: read the workspace's activity log.
	ViewActivity Permission = "activity:view"
	// TransferOwnership: make another member an owner and step down.
	TransferOwnership Permission = "ownership:transfer"
	// CreateRefunds: ask for refunds and cancel them.
	CreateRefunds Permission = "refunds:create"
	// ApproveRefunds: put refunds in review, approve, reject and report them returned; set
	// the workspace's two-person amount.
	ApproveRefunds Permission = "refunds:approve"
)

// AllPermissions lists every permission in a stable order.
var AllPermissions = []Permission{ViewWorkspace, WriteDocuments, ViewKeys, ManageKeys, ManageTeam, ViewActivity, TransferOwnership, CreateRefunds, ApproveRefunds}

// Can reports whether the role allows p:
//
//	             view  write-docs  view-keys  manage-keys  team  activity  transfer  create-refunds  approve-refunds
//	viewer        yes
//	developer     yes     yes         yes                                               yes
//	admin         yes     yes         yes        yes        yes     yes                 yes             yes
//	owner         yes     yes         yes        yes        yes     yes       yes       yes             yes
//
// An unknown role allows nothing.
func (r Role) Can(p Permission) bool {
	switch p {
	case ViewWorkspace:
		return r == RoleViewer || r == RoleDeveloper || r == RoleAdmin || r == RoleOwner
	case WriteDocuments, ViewKeys, CreateRefunds:
		return r == RoleDeveloper || r == RoleAdmin || r == RoleOwner
	case ManageKeys, ManageTeam, ViewActivity, ApproveRefunds:
		return r == RoleAdmin || r == RoleOwner
	case TransferOwnership:
		return r == RoleOwner
	}
	return false
}
