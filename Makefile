# Takapay payments API. A newcomer needs two targets: `make dev` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

GO        ?= go
NPM       ?= npm
# Lambda build flags (provided.al2023, arm64): static, stripped, reproducible.
LAMBDA_ENV   := CGO_ENABLED=0 GOOS=linux GOARCH=arm64
LAMBDA_FLAGS := -tags lambda.norpc -trimpath -ldflags "-s -w -buildid="
# template.yaml logical id -> functions/<dir>
FUNCTIONS := PaymentCreateFunction:payment-create PaymentVerifyFunction:payment-verify MerchantFunction:merchant PaymentIntentsFunction:payment-intents PaymentIntentCancelFunction:payment-intent-cancel ProbesFunction:probes DocumentsFunction:documents PublicDocumentsFunction:public-documents CheckoutFunction:checkout WebhookSenderFunction:webhook-sender WebhookRedriveFunction:webhook-redrive DashboardFunction:dashboard DashboardPasskeysFunction:dashboard-passkeys DashboardDocumentsFunction:dashboard-documents DashboardWebhooksFunction:dashboard-webhooks DashboardCustomersFunction:dashboard-customers DashboardPaymentsFunction:dashboard-payments DashboardExportFunction:dashboard-export DashboardPublicFunction:dashboard-public RefundsFunction:refunds

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-zA-Z_%-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

node_modules/.installed: package.json package-lock.json
	@command -v $(NPM) >/dev/null || { echo "npm is missing: install Node.js 20+ (Debian: apt-get install nodejs npm)"; exit 1; }
	$(NPM) ci --no-audit --no-fund --loglevel=error
	@touch $@

clients/typescript/node_modules/.installed: clients/typescript/package.json clients/typescript/package-lock.json
	cd clients/typescript && $(NPM) ci --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: deps
deps: node_modules/.installed clients/typescript/node_modules/.installed ## Install the local AWS servers and the TypeScript client's tools (npm ci), and Go modules
	$(GO) mod download
	cd clients/go && $(GO) mod download

# Redocly CLI without its telemetry or update check (local tooling; no Lambda links it).
REDOCLY := REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true node_modules/.bin/redocly

.PHONY: docs
docs: .build/docs/index.html ## Build the API reference from shared/openapi/openapi.yaml (Redocly CLI) into .build/docs/index.html; make dev serves it at /docs

.build/docs/index.html: shared/openapi/openapi.yaml node_modules/.installed
	@mkdir -p $(@D)
	$(REDOCLY) build-docs shared/openapi/openapi.yaml --inlineBundle --openapi.routingBasePath=/docs -o $@

.PHONY: dev
dev: deps docs ## Build, then start the whole local stack: dynalite, fauxqs, aws-ses-v2-local, local-kms, the API on :3000 from the real bootstraps (PORT, PARAMS="Name=Value ...", RUNTIME=inprocess, POOL_SIZE=N, BUILD_TIMEOUT=20m)
	@echo "building make dev's own program, cmd/devstack (cached after the first run)…"
	@# The functions' host build flags (rie.Bootstraps): the packages they share compile once.
	CGO_ENABLED=0 $(GO) build -tags lambda.norpc -trimpath -o .build/devstack ./cmd/devstack
	exec .build/devstack

# `go vet ./...` runs every default analyzer over every package and its tests once; the go test
# lines after it pass -vet=off, since go test would otherwise run a subset of those analyzers
# again before each package's tests (in each of the three lines). The browser tests are built
# without -race (chromedp races on its own: //go:build !race), so they have their own line.
.PHONY: test
test: deps ## Run every test (unit, integration against dynalite/fauxqs, -race)
	$(GO) vet ./...
	$(GO) test -race -vet=off -count=1 -timeout 20m ./...
	cd clients/go && $(GO) vet ./... && $(GO) test -race -vet=off -count=1 ./...
	cd clients/typescript && $(NPM) test
	$(GO) test -vet=off -count=1 -timeout 20m -run '^TestBrowser' -v ./shared/checkout/integration/ ./shared/publicdoc/integration/ ./shared/passkey/ ./shared/edge/dashboard/ ./shared/mail/ ./cmd/devstack/

.PHONY: bench
bench: deps ## Cost model of a paid checkout (WRU, RRU, $ per 1M), latency vs raw requests, hottest partition share
	$(GO) test -run '^$$' -bench . -benchtime 300x -count 1 ./shared/local/bench/ | grep -Ev '^(goos|goarch|pkg|cpu):'
	TAKAPAY_BENCH=1 $(GO) test -run '^(TestHotPartition|TestDrainBacklog)$$' -count 1 -v -timeout 20m ./shared/local/bench/ | grep -E '^(hot partition|drain:|--- |ok|FAIL)'

.PHONY: provision
provision: ## The SAM CLI path: provision ENDPOINT (DynamoDB Local, e.g. http://localhost:8000; SQS_ENDPOINT optional), write .dev/sam/
	$(GO) run ./cmd/samlocal -dynamo-endpoint "$(ENDPOINT)" $(if $(SQS_ENDPOINT),-sqs-endpoint "$(SQS_ENDPOINT)") $(if $(CONTAINER_HOST),-container-host "$(CONTAINER_HOST)")

.PHONY: walkthrough
walkthrough: deps ## Run the walk-throughs of README.md, docs/getting-started-*.md (curl, Go, Node, PHP) and docs/refunds.md as written against a fresh local stack; part of make test too
	$(GO) test -count=1 -run '^TestReadmeWalkthrough' -v ./shared/local/walkthrough/
	$(GO) test -count=1 -run '^TestGettingStarted' -v ./shared/local/clienttest/

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME (default 30s)
	@set -e; for t in money:FuzzParseTaka urlcheck:FuzzCheck edge/paymentapi:FuzzParseCreateRequest \
	  document:FuzzParseBody document:FuzzMergePatch htmlw:FuzzMatchesHTMLTemplate page:FuzzAmount; do \
	  $(GO) test -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $${FUZZTIME:-30s} -fuzzminimizetime 1s ./shared/$${t%%:*}/; done

.PHONY: build
build: ## Cross-compile every function to .build/<function>/bootstrap (linux/arm64); print sizes vs the floor binary
	@set -e; $(LAMBDA_ENV) $(GO) build $(LAMBDA_FLAGS) -o .build/lambda-floor/bootstrap ./cmd/lambda-floor; \
	  floor=$$(wc -c < .build/lambda-floor/bootstrap); \
	  printf '  %-28s %10d bytes  (floor: lambda.Start + AWS config + DynamoDB and SQS clients)\n' lambda-floor $$floor; \
	  for f in $(FUNCTIONS); do id=$${f%%:*}; dir=$${f##*:}; \
	  $(LAMBDA_ENV) $(GO) build $(LAMBDA_FLAGS) -o .build/$$dir/bootstrap ./functions/$$dir; \
	  size=$$(wc -c < .build/$$dir/bootstrap); \
	  printf '  %-28s %10d bytes  %s x floor\n' "$$id" $$size "$$(awk -v a=$$size -v b=$$floor 'BEGIN{printf "%.2f", a/b}')"; done

.PHONY: coldstart
coldstart: ## Time each function's init (exec to first Runtime API poll) against the floor binary, on this host
	@set -e; for d in cmd/lambda-floor $(addprefix functions/,$(foreach f,$(FUNCTIONS),$(lastword $(subst :, ,$(f))))); do \
	  CGO_ENABLED=0 $(GO) build $(LAMBDA_FLAGS) -o .build/host/$$(basename $$d) ./$$d; done; \
	  $(GO) run ./cmd/initbench -n $${N:-50} .build/host/lambda-floor $(addprefix .build/host/,$(foreach f,$(FUNCTIONS),$(lastword $(subst :, ,$(f)))))

# sam build (BuildMethod: makefile) calls build-<LogicalId> with ARTIFACTS_DIR set.
build-%:
	@dir=$$(for f in $(FUNCTIONS); do [ "$${f%%:*}" = "$*" ] && echo $${f##*:}; done); \
	  test -n "$$dir" || { echo "unknown function $*"; exit 1; }; \
	  $(LAMBDA_ENV) $(GO) build $(LAMBDA_FLAGS) -o $(ARTIFACTS_DIR)/bootstrap ./functions/$$dir

.PHONY: fmt
fmt: ## gofmt the tree
	gofmt -w $$(git ls-files '*.go')

.PHONY: clean
clean: ## Remove build output and local stack data
	rm -rf .build .dev .aws-sam
