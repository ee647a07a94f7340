import { toAmountMinor, toAmountText, jsonWithAmount, type Amount } from "./amount.js";
import { call, checkIdempotencyKey, newIdempotencyKey, sleepDefault, type CallOptions, type TransportOptions } from "./http.js";
import type { components, paths } from "./schema.js";
import { VERSION } from "./version.js";
import { verifyWebhook, type VerifyWebhookOptions, type WebhookEvent } from "./webhooks.js";

type Schemas = components["schemas"];

/** The JSON body of operation P M's answer S, straight from the generated contract types. */
type Json<P extends keyof paths, M extends keyof paths[P], S extends number> =
  paths[P][M] extends { responses: { [K in S]: { content: { "application/json": infer T } } } } ? T : never;
type Docs = "/v1/workspaces/{workspaceID}/documents/invoices";
type Doc = "/v1/workspaces/{workspaceID}/documents/invoices/{documentID}";

export type PaymentCreateResponse = Json<"/v1/payment/create", "post", 201>;
export type PaymentVerifyResponse = Json<"/v1/payment/verify", "post", 200>;
export type PaymentIntent = Json<"/v1/payment-intents/{intentID}", "get", 200>;
export type PaymentIntentList = Json<"/v1/payment-intents", "get", 200>;
export type PaymentIntentVerification = Json<"/v1/payment-intents/{intentID}/verify-transaction", "post", 200>;
export type DocumentBody = Schemas["DocumentBody"];
export type DocumentPatch = Omit<Partial<Schemas["DocumentBody"]>, "expected_version">;
export type DocumentRecord = Json<Docs, "post", 201>;
export type DocumentList = Json<Docs, "get", 200>;
/** A document's get: the list-result shape (items holds the one record; a customer's activity has its invoices), plus record, that record. */
export type DocumentView = Json<Doc, "get", 200> & { record: DocumentRecord };
export type Environment = "sandbox" | "live";
export type Mismatch = NonNullable<PaymentVerifyResponse["mismatches"]>[number];
export type PaymentIntentListQuery = NonNullable<paths["/v1/payment-intents"]["get"]["parameters"]["query"]>;
export type DocumentListQuery = Omit<NonNullable<paths["/v1/workspaces/{workspaceID}/documents/customers"]["get"]["parameters"]["query"]>, "environment">;
type RefundsPath = "/v1/workspaces/{workspaceID}/refunds";
type RefundPath = "/v1/workspaces/{workspaceID}/refunds/{refundID}";
export type Refund = Json<RefundPath, "get", 200>;
export type RefundList = Json<RefundsPath, "get", 200>;
/** A refund's create: payment_id (the payment's invoice_id), amount_minor (paisa; absent: everything still refundable), reason, note, reference, metadata. */
export type RefundCreateParams = Schemas["RefundCreate"];
/** review, approve, cancel: an optional note and expected_version. */
export type RefundTransitionBody = Schemas["RefundTransition"];
/** reject: reason (required), expected_version. */
export type RefundRejectBody = Schemas["RefundReject"];
/** report-returned: provider_reference (required: the provider's transaction id), returned_at, expected_version. */
export type RefundReportReturnedBody = Schemas["RefundReportReturned"];
export type RefundListQuery = Omit<NonNullable<paths[RefundsPath]["get"]["parameters"]["query"]>, "environment">;
type MerchantContext = Json<"/v1/merchant/context", "get", 200>;

export interface TakapayOptions {
  /** A secret key, sk_sandbox_… or sk_live_… Server-side only. */
  apiKey: string;
  /** The API's base URL, e.g. https://api.example.com (no trailing path needed). */
  baseUrl: string;
  /**
   * The workspace id: needed for documents (customers, invoices, payment links). Refunds read
   * the key's workspace from GET /v1/merchant/context (once) when it is absent.
   */
  workspaceId?: string;
  /** sandbox or live; by default from the key's prefix. */
  environment?: Environment;
  /** Attempts per call, retries included (default 3). */
  maxAttempts?: number;
  /** Per-attempt timeout in ms (default 10000). */
  timeoutMs?: number;
  /** Backoff: first delay's ceiling (default 250 ms) and largest delay (default 8000 ms). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Appended to the User-Agent (takapay-typescript/<version> <suffix>). */
  userAgentSuffix?: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof globalThis.fetch;
}

/** Options of a create: the Idempotency-Key (generated when absent, reused by retries). */
export interface CreateOptions extends CallOptions {
  idempotencyKey?: string;
}

type Nullable<T> = { [K in keyof T]?: T[K] | null };
type PaymentFields = Omit<Schemas["PaymentCreateRequest"], "amount">;

/** createPayment's parameters: amount as a decimal string of taka or integer paisa, never a float of taka. */
export interface PaymentCreateParams extends PaymentFields {
  amount: Amount;
}

/** A linked payment intent: the server prices it from an invoice or payment link. */
export type LinkedIntentParams = Schemas["PaymentIntentLinkedCreateRequest"];

/** Your order's values for a verify; currency defaults to BDT. */
export interface Expected {
  amount: Amount;
  reference: string;
  currency?: string;
}

/** A verify's answer; with expected, match and mismatches are always set. */
export type VerifyResult<T extends PaymentVerifyResponse = PaymentVerifyResponse> = T & { match?: boolean; mismatches?: Mismatch[] };

function inBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown };
  return typeof g.window !== "undefined" && typeof g.document !== "undefined";
}

function expectedBody(e: Expected): Schemas["PaymentVerifyExpected"] {
  return { amount_minor: toAmountMinor(e.amount), currency: e.currency ?? "BDT", reference: e.reference };
}

function transitionBody(expectedVersion?: number): string | undefined {
  return expectedVersion === undefined ? undefined : JSON.stringify({ expected_version: expectedVersion });
}

const seg = (s: string) => encodeURIComponent(s);

/** The Takapay API client (server-side only). */
export class Takapay {
  readonly environment: Environment;
  readonly workspaceId: string | undefined;
  readonly payments: Payments;
  readonly paymentIntents: PaymentIntents;
  readonly customers: Documents<"customers">;
  readonly invoices: Invoices;
  readonly paymentLinks: PaymentLinks;
  readonly refunds: Refunds;
  /** @internal */
  readonly t: TransportOptions;
  private ws: Promise<string> | undefined;

  constructor(opts: TakapayOptions) {
    if (inBrowser()) {
      throw new Error("@takapay/client is server-side only: a secret key must never reach a browser");
    }
    if (!opts?.apiKey) throw new TypeError("apiKey is required");
    if (!opts.baseUrl) throw new TypeError("baseUrl is required");
    const env = opts.environment ?? (opts.apiKey.startsWith("sk_live_") ? "live" : opts.apiKey.startsWith("sk_sandbox_") ? "sandbox" : undefined);
    if (!env) throw new TypeError("environment is required when the key is neither sk_sandbox_… nor sk_live_…");
    this.environment = env;
    this.workspaceId = opts.workspaceId;
    this.t = {
      baseUrl: opts.baseUrl,
      apiKey: opts.apiKey,
      userAgent: `takapay-typescript/${VERSION}` + (opts.userAgentSuffix ? ` ${opts.userAgentSuffix}` : ""),
      maxAttempts: opts.maxAttempts ?? 3,
      timeoutMs: opts.timeoutMs ?? 10_000,
      baseDelayMs: opts.baseDelayMs,
      maxDelayMs: opts.maxDelayMs,
      fetch: opts.fetch ?? globalThis.fetch,
      sleep: sleepDefault,
    };
    this.payments = new Payments(this);
    this.paymentIntents = new PaymentIntents(this);
    this.customers = new Documents(this, "customers");
    this.invoices = new Invoices(this, "invoices");
    this.paymentLinks = new PaymentLinks(this, "payment-links");
    this.refunds = new Refunds(this);
  }

  /** The workspace: workspaceId, else the key's (GET /v1/merchant/context, asked once; asked again after a failure). */
  workspace(opts?: CallOptions): Promise<string> {
    if (this.workspaceId) return Promise.resolve(this.workspaceId);
    this.ws ??= call<MerchantContext>(this.t, { ...opts, method: "GET", path: "/v1/merchant/context" }).then(
      (r) => r.data.workspace_id,
      (err) => {
        this.ws = undefined;
        throw err;
      },
    );
    return this.ws;
  }

  /** Verifies a webhook delivery in one call (see verifyWebhook). */
  verifyWebhook(opts: VerifyWebhookOptions): WebhookEvent {
    return verifyWebhook(opts);
  }
}

function createBody(p: PaymentCreateParams): string {
  const { amount, ...rest } = p;
  return jsonWithAmount(toAmountText(amount), rest as Record<string, unknown>);
}

function key(o?: CreateOptions): string {
  return o?.idempotencyKey === undefined ? newIdempotencyKey() : checkIdempotencyKey(o.idempotencyKey);
}

/** Hosted payments: create and verify. */
export class Payments {
  constructor(private readonly c: Takapay) {}

  /** POST /v1/payment/create (always with an Idempotency-Key). */
  async create(params: PaymentCreateParams, opts?: CreateOptions): Promise<PaymentCreateResponse & { replayed: boolean }> {
    const body = createBody(params);
    const r = await call<PaymentCreateResponse>(this.c.t, { ...opts, method: "POST", path: "/v1/payment/create", body, idempotencyKey: key(opts) });
    return { ...r.data, replayed: r.headers.get("idempotent-replayed") === "true" };
  }

  /**
   * POST /v1/payment/verify. With expected, the server compares status, amount, currency and
   * reference exactly: match is true only for a COMPLETED payment of your order's values, and
   * a mismatch is an answer (mismatches names the fields), not an error.
   */
  async verify(invoiceId: string, opts?: CallOptions & { expected?: Expected }): Promise<VerifyResult> {
    const req: Schemas["PaymentVerifyRequest"] = { invoice_id: invoiceId };
    if (opts?.expected) req.expected = expectedBody(opts.expected);
    const r = await call<VerifyResult>(this.c.t, { ...opts, method: "POST", path: "/v1/payment/verify", body: JSON.stringify(req) });
    return r.data;
  }
}

/** Payment intents: create (standalone or linked), get, list, cancel, verify. */
export class PaymentIntents {
  constructor(private readonly c: Takapay) {}

  async create(params: PaymentCreateParams | LinkedIntentParams, opts?: CreateOptions): Promise<PaymentIntent & { replayed: boolean }> {
    const body = "document_id" in params && params.document_id !== undefined
      ? JSON.stringify(params)
      : createBody(params as PaymentCreateParams);
    const r = await call<PaymentIntent>(this.c.t, { ...opts, method: "POST", path: "/v1/payment-intents", body, idempotencyKey: key(opts) });
    return { ...r.data, replayed: r.headers.get("idempotent-replayed") === "true" };
  }

  async get(intentId: string, opts?: CallOptions): Promise<PaymentIntent> {
    return (await call<PaymentIntent>(this.c.t, { ...opts, method: "GET", path: `/v1/payment-intents/${seg(intentId)}` })).data;
  }

  /** One page, newest first; pass next_cursor as cursor for the next. */
  async list(query: PaymentIntentListQuery = {}, opts?: CallOptions): Promise<PaymentIntentList> {
    return (await call<PaymentIntentList>(this.c.t, { ...opts, method: "GET", path: "/v1/payment-intents", query })).data;
  }

  /** Every intent matching query, page after page. */
  async *listAll(query: Omit<PaymentIntentListQuery, "cursor"> = {}, opts?: CallOptions): AsyncGenerator<PaymentIntent> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...query, cursor }, opts);
      yield* page.items;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  async cancel(intentId: string, opts?: CallOptions): Promise<PaymentIntent> {
    return (await call<PaymentIntent>(this.c.t, { ...opts, method: "POST", path: `/v1/payment-intents/${seg(intentId)}/cancel` })).data;
  }

  /** POST /v1/payment-intents/{id}/verify-transaction (see Payments.verify). */
  async verify(intentId: string, opts?: CallOptions & { expected?: Expected }): Promise<VerifyResult<PaymentIntentVerification>> {
    const body = opts?.expected ? JSON.stringify({ expected: expectedBody(opts.expected) }) : undefined;
    return (await call<VerifyResult<PaymentIntentVerification>>(this.c.t,
      { ...opts, method: "POST", path: `/v1/payment-intents/${seg(intentId)}/verify-transaction`, body })).data;
  }
}

type Kind = "customers" | "invoices" | "payment-links";

/** Documents of one kind: create, get, list, edit (JSON merge patch, optional expected version). */
export class Documents<K extends Kind> {
  constructor(protected readonly c: Takapay, readonly kind: K) {}

  protected path(id?: string, action?: string): string {
    if (!this.c.workspaceId) throw new TypeError("workspaceId is required for documents");
    let p = `/v1/workspaces/${seg(this.c.workspaceId)}/documents/${this.kind}`;
    if (id !== undefined) p += `/${seg(id)}`;
    if (action !== undefined) p += `/${action}`;
    return p;
  }

  protected get env() {
    return { environment: this.c.environment };
  }

  async create(body: DocumentBody, opts?: CreateOptions): Promise<DocumentRecord> {
    return (await call<DocumentRecord>(this.c.t, { ...opts, method: "POST", path: this.path(), query: this.env, body: JSON.stringify(body), idempotencyKey: key(opts) })).data;
  }

  async get(id: string, opts?: CallOptions & { historyCursor?: string }): Promise<DocumentView> {
    const r = await call<Json<Doc, "get", 200>>(this.c.t, { ...opts, method: "GET", path: this.path(id), query: { ...this.env, history_cursor: opts?.historyCursor } });
    const record = r.data.items[0];
    if (!record) throw new TypeError(`the get of ${this.kind} ${id} answered no record`);
    return { ...r.data, record };
  }

  async list(query: DocumentListQuery = {}, opts?: CallOptions): Promise<DocumentList> {
    return (await call<DocumentList>(this.c.t, { ...opts, method: "GET", path: this.path(), query: { ...this.env, ...query } })).data;
  }

  /** PATCH with a JSON merge patch (null deletes a member); expectedVersion guards against a concurrent edit (409 VERSION_CONFLICT). */
  async edit(id: string, patch: Nullable<DocumentPatch>, opts?: CreateOptions & { expectedVersion?: number }): Promise<DocumentRecord> {
    const body = opts?.expectedVersion === undefined ? patch : { ...patch, expected_version: opts.expectedVersion };
    return (await call<DocumentRecord>(this.c.t, { ...opts, method: "PATCH", path: this.path(id), query: this.env, body: JSON.stringify(body), idempotencyKey: key(opts) })).data;
  }

  protected async transition(id: string, action: string, opts?: CallOptions & { expectedVersion?: number }): Promise<DocumentRecord> {
    return (await call<DocumentRecord>(this.c.t, { ...opts, method: "POST", path: this.path(id, action), query: this.env, body: transitionBody(opts?.expectedVersion) })).data;
  }
}

export class Invoices extends Documents<"invoices"> {
  /** draft -> issued. */
  issue(id: string, opts?: CallOptions & { expectedVersion?: number }) {
    return this.transition(id, "issue", opts);
  }
  /** draft|issued -> cancelled. */
  cancel(id: string, opts?: CallOptions & { expectedVersion?: number }) {
    return this.transition(id, "cancel", opts);
  }
}

export class PaymentLinks extends Documents<"payment-links"> {
  /** draft -> active. */
  publish(id: string, opts?: CallOptions & { expectedVersion?: number }) {
    return this.transition(id, "publish", opts);
  }
  /** -> archived. */
  archive(id: string, opts?: CallOptions & { expectedVersion?: number }) {
    return this.transition(id, "archive", opts);
  }
}

/**
 * Refunds of the workspace in the key's environment (docs/refunds.md): create (with an
 * Idempotency-Key), get, list, listAll, and the transitions. Each transition answers the
 * refund; repeating one that already happened answers it as it is, another from the wrong status
 * is 409 STATE_CONFLICT, and expected_version in the body guards against a concurrent decision
 * (409 VERSION_CONFLICT). Transitions take no Idempotency-Key: a repeat is safe by itself.
 */
export class Refunds {
  constructor(private readonly c: Takapay) {}

  private async path(opts: CallOptions | undefined, id?: string, action?: string): Promise<string> {
    let p = `/v1/workspaces/${seg(await this.c.workspace(opts))}/refunds`;
    if (id !== undefined) p += `/${seg(id)}`;
    if (action !== undefined) p += `/${action}`;
    return p;
  }

  private get env() {
    return { environment: this.c.environment };
  }

  /** Ask for a refund of a COMPLETED payment (REQUESTED), never more than is still refundable (else 409). */
  async create(params: RefundCreateParams, opts?: CreateOptions): Promise<Refund & { replayed: boolean }> {
    const path = await this.path(opts);
    const r = await call<Refund>(this.c.t, { ...opts, method: "POST", path, query: this.env, body: JSON.stringify(params), idempotencyKey: key(opts) });
    return { ...r.data, replayed: r.headers.get("idempotent-replayed") === "true" };
  }

  async get(id: string, opts?: CallOptions): Promise<Refund> {
    return (await call<Refund>(this.c.t, { ...opts, method: "GET", path: await this.path(opts, id), query: this.env })).data;
  }

  /** One page, newest first (status, payment_id, overdue, limit, cursor); a filtered page may be short, even empty, and still have next_cursor. */
  async list(query: RefundListQuery = {}, opts?: CallOptions): Promise<RefundList> {
    return (await call<RefundList>(this.c.t, { ...opts, method: "GET", path: await this.path(opts), query: { ...this.env, ...query } })).data;
  }

  /** Every refund matching query, page after page until next_cursor is absent. */
  async *listAll(query: Omit<RefundListQuery, "cursor"> = {}, opts?: CallOptions): AsyncGenerator<Refund> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...query, cursor }, opts);
      yield* page.items;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** REQUESTED -> IN_REVIEW. */
  review(id: string, body: RefundTransitionBody = {}, opts?: CallOptions): Promise<Refund> {
    return this.transition(id, "review", body, opts);
  }

  /** REQUESTED | IN_REVIEW -> APPROVED; due_by is set (RefundDueDays after the approval). */
  approve(id: string, body: RefundTransitionBody = {}, opts?: CallOptions): Promise<Refund> {
    return this.transition(id, "approve", body, opts);
  }

  /** REQUESTED | IN_REVIEW -> REJECTED (reason required); the amount is refundable again at once. */
  reject(id: string, body: RefundRejectBody, opts?: CallOptions): Promise<Refund> {
    return this.transition(id, "reject", body, opts);
  }

  /** APPROVED -> RETURNED with the provider's transaction id (e.g. a bKash TrxID). */
  reportReturned(id: string, body: RefundReportReturnedBody, opts?: CallOptions): Promise<Refund> {
    return this.transition(id, "report-returned", body, opts);
  }

  /** REQUESTED | IN_REVIEW | APPROVED -> CANCELLED; the amount is refundable again at once. */
  cancel(id: string, body: RefundTransitionBody = {}, opts?: CallOptions): Promise<Refund> {
    return this.transition(id, "cancel", body, opts);
  }

  private async transition(id: string, action: string, body: object, opts?: CallOptions): Promise<Refund> {
    return (await call<Refund>(this.c.t, { ...opts, method: "POST", path: await this.path(opts, id, action), query: this.env, body: JSON.stringify(body) })).data;
  }
}
