// Package passkey lets a dashboard user register passkeys (WebAuthn discoverable credentials
// with user verification), name, list and remove them, and sign in with a passkey alone. It is
// plain Go over github.com/go-webauthn/webauthn; shared/aws/dynamo implements its Store.
//
// # Rules
//
//   - A passkey is discoverable (resident key required) and user-verified (PIN or biometric):
//     it is the whole sign-in, not a second factor. Attestation is not requested.
//   - The user handle given to the authenticator is the user id (a UUID; no personal data). A
//     sign-in takes the user from the response's user handle, reads that user's passkeys (one
//     Query) and requires the credential to be one of them; no lookup item by credential id
//     exists, so there is nothing to keep consistent with a second write.
//   - A passkey's id is the hex SHA-256 of its credential id. Names are 1..64 characters, no
//     control characters, no surrounding spaces. A user has at most MaxPerUser (10) passkeys
//     (checked at begin and at finish; two registrations finished at the same instant could
//     pass the check together: the cap is not a security boundary).
//   - A ceremony (the challenge and what it was begun with) is kept server-side under the
//     SHA-256 of a random 256-bit id for CeremonyLifetime (5 minutes) and used at most once:
//     finishing takes it with one conditional delete before anything is verified, so a failed
//     or replayed response burns it. Unknown, expired, reused, or begun for another purpose or
//     another user: ErrCeremony.
//   - Every signature counter is checked (ErrCloned when it did not grow) and the new count is
//     written only if the stored one is still the one verified against.
//   - Someone else's passkey is ErrNotFound, exactly like a missing one.
//   - Registering needs the session's proof of who its user is (the password or a sign-in)
//     within FreshProof (5 minutes), at begin and at finish: ErrStaleProof otherwise. A new
//     passkey is stored Pending and signs no one in until the caller has told its owner (the
//     dashboard emails them) and activated it (Store.ActivatePasskey).
//
// # The form contract (what a dashboard page renders)
//
// Passkeys need JavaScript; everything else on the page does not. The page renders a form and
// includes Script (inline, allowed by its CSP hash; no inline handlers, no fetch):
//
//	<p data-passkey-unsupported hidden>Your browser cannot use passkeys.</p>
//	<form method="post" action="/dashboard/…/finish" data-passkey="register|login"
//	      data-passkey-options="{Ceremony.Options, HTML-attribute-escaped}" hidden>
//	  <input type="hidden" name="ceremony" value="{Ceremony.ID}">
//	  <input type="hidden" name="response" value="">
//	  <!-- register only: --> <label>Name <input name="name" required maxlength="64"></label>
//	  <!-- the dashboard's own CSRF field --> <input type="hidden" name="csrf" value="…">
//	  <p data-passkey-error role="alert" hidden>The passkey was not used. Try again.</p>
//	  <button type="submit">Add a passkey | Sign in with a passkey</button>
//	</form>
//
// The script un-hides every form[data-passkey] when the browser has WebAuthn
// (window.PublicKeyCredential and navigator.credentials) and un-hides [data-passkey-unsupported]
// elements otherwise, so without WebAuthn (or without JavaScript) the passkey UI stays hidden.
// On submit (a user gesture: the form's own validation runs first) it calls
// navigator.credentials.create (register) or .get (login) with the options (base64url members
// converted to bytes), writes the credential as JSON (binary members base64url, the shape
// go-webauthn parses: id, rawId, type, response{clientDataJSON, attestationObject, transports}
// or response{clientDataJSON, authenticatorData, signature, userHandle},
// clientExtensionResults) into the hidden "response" field and submits the form normally.
// When the browser call fails or is cancelled it shows the [data-passkey-error] element
// inside the form, sets data-passkey-failure on the form to the DOMException's name
// (NotAllowedError: cancelled or timed out; InvalidStateError: this authenticator already
// holds one of the user's passkeys) and re-enables the button (the ceremony is unused:
// retrying is fine). While waiting the form has aria-busy="true" and the submit button is
// disabled. The script submits through HTMLFormElement.prototype.submit, so a control named
// "submit" is harmless.
//
// Passkeys work only on an origin whose host is the RP ID or under it, over https or on
// http://localhost: never on an IP address such as http://127.0.0.1:3000 (browsers refuse
// IP RP IDs). Locally use Origin "http://localhost:<port>" with RPID "localhost".
//
// The server then calls FinishRegistration(ctx, userID, form "ceremony", form "name", form
// "response") or FinishLogin(ctx, form "ceremony", form "response", Client{IP, UserAgent}).
// The page needs CSP script-src 'sha256-…' (page.Policy{Script: Script}) and form-action 'self';
// no connect-src. Each page view that renders a form begins a ceremony: one PutItem.
//
// # Wiring
//
// The account service starts the session; a three-line adapter fits it to SessionStarter:
//
//	type accountSessions struct{ a *account.Service }
//
//	func (s accountSessions) StartSession(ctx context.Context, userID, ip, ua string) (string, time.Time, error) {
//		sess, err := s.a.StartSession(ctx, userID, account.Client{IP: ip, UserAgent: ua})
//		if err != nil {
//			return "", time.Time{}, err
//		}
//		return sess.Token, sess.ExpiresAt, nil
//	}
//
//	svc, err := passkey.New(passkey.Config{Origin: origin, RPID: rpID, Name: "Takapay", OnEvent: record},
//		&dynamo.Store{DB: db, Table: table}, accountSessions{accounts})
//
// # DynamoDB requests
//
// BeginRegistration: Query + PutItem. FinishRegistration: DeleteItem + Query + PutItem.
// BeginLogin: PutItem. FinishLogin: DeleteItem + Query + UpdateItem, then the session
// starter's own. List: Query. Rename, Remove: one UpdateItem / DeleteItem. The IAM policy of
// the function needs dynamodb:Query, PutItem, UpdateItem and DeleteItem on the table.
package passkey
