package app

import (
	"slices"
	"strings"
	"testing"
)

func lookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

func TestConfigDashboardOrigins(t *testing.T) {
	tests := []struct {
		value string
		want  []string
		fail  string
	}{
		{"", nil, ""},
		{"  ", nil, ""},
		{"https://dashboard.example.com.bd", []string{"https://dashboard.example.com.bd"}, ""},
		{" https://dashboard.example.com.bd , http://127.0.0.1:3000,,http://localhost:5173 ",
			[]string{"https://dashboard.example.com.bd", "http://127.0.0.1:3000", "http://localhost:5173"}, ""},
		{"https://a.example,https://a.example", []string{"https://a.example"}, ""},
		{"http://[::1]:3000", []string{"http://[::1]:3000"}, ""},
		{"https://dashboard.example.com.bd/", nil, "path"},
		{"https://dashboard.example.com.bd/app", nil, "path"},
		{"https://dashboard.example.com.bd?x=1", nil, "path"},
		{"https://dashboard.example.com.bd#", nil, "path"},
		{"https://user@dashboard.example.com.bd", nil, "path"},
		{"https://Dashboard.example.com.bd", nil, "lower case"},
		{"HTTPS://dashboard.example.com.bd", nil, "lower case"},
		{"https://dashboard.example.com.bd:443", nil, "default port"},
		{"http://dashboard.example.com.bd:80", nil, "default port"},
		{"https://dashboard.example.com.bd:", nil, "default port"},
		{"dashboard.example.com.bd", nil, "scheme"},
		{"ftp://dashboard.example.com.bd", nil, "scheme"},
		{"*", nil, "scheme"},
		{"null", nil, "scheme"},
		{"https://", nil, "host"},
		{"https://ok.example,bad", nil, "bad"},
	}
	for _, tt := range tests {
		c, err := ConfigFromEnv(lookup(map[string]string{"TABLE_NAME": "t", "DASHBOARD_ORIGINS": tt.value}))
		if tt.fail != "" {
			if err == nil || !strings.Contains(err.Error(), "DASHBOARD_ORIGINS") || !strings.Contains(err.Error(), tt.fail) {
				t.Errorf("DASHBOARD_ORIGINS=%q: error %v, want one mentioning %q", tt.value, err, tt.fail)
			}
			continue
		}
		if err != nil {
			t.Errorf("DASHBOARD_ORIGINS=%q: %v", tt.value, err)
			continue
		}
		if !slices.Equal(c.DashboardOrigins, tt.want) {
			t.Errorf("DASHBOARD_ORIGINS=%q: origins %q, want %q", tt.value, c.DashboardOrigins, tt.want)
		}
	}
	// Unset is the same as empty.
	c, err := ConfigFromEnv(lookup(map[string]string{"TABLE_NAME": "t"}))
	if err != nil || c.DashboardOrigins != nil {
		t.Errorf("unset DASHBOARD_ORIGINS: %q, %v", c.DashboardOrigins, err)
	}
}

func TestNewWiresSessions(t *testing.T) {
	cfg := Config{TableName: "t", DashboardOrigins: []string{"https://dashboard.example.com.bd"}}
	d := New(cfg, nil, nil, nil)
	if d.Auth.Keys != d.Store || d.Auth.Sessions != d.Store {
		t.Errorf("authenticator stores = %v / %v, want the Store %v", d.Auth.Keys, d.Auth.Sessions, d.Store)
	}
	if !slices.Equal(d.Auth.AllowedOrigins, cfg.DashboardOrigins) {
		t.Errorf("AllowedOrigins = %q, want %q", d.Auth.AllowedOrigins, cfg.DashboardOrigins)
	}
}

func TestConfigRateLimits(t *testing.T) {
	c, err := ConfigFromEnv(lookup(map[string]string{"TABLE_NAME": "t"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.WorkspaceRateLimit != 100 || c.WorkspaceRateBurst != 200 || c.WorkspaceRateLease != 20 || c.AuthFailuresPerClient != 120 {
		t.Errorf("defaults: rate %d burst %d lease %d auth failures %d", c.WorkspaceRateLimit, c.WorkspaceRateBurst,
			c.WorkspaceRateLease, c.AuthFailuresPerClient)
	}
	c, err = ConfigFromEnv(lookup(map[string]string{"TABLE_NAME": "t", "WORKSPACE_RATE_LIMIT": "0", "AUTH_FAILURES_PER_CLIENT": "0",
		"WORKSPACE_RATE_BURST": "5", "WORKSPACE_RATE_LEASE": "2"}))
	if err != nil || c.WorkspaceRateLimit != 0 || c.AuthFailuresPerClient != 0 || c.WorkspaceRateBurst != 5 || c.WorkspaceRateLease != 2 {
		t.Errorf("explicit values: %+v, %v", c, err)
	}
	for _, bad := range []map[string]string{
		{"WORKSPACE_RATE_LIMIT": "-1"}, {"WORKSPACE_RATE_LIMIT": "ten"}, {"WORKSPACE_RATE_BURST": "0"},
		{"WORKSPACE_RATE_LEASE": "0"}, {"AUTH_FAILURES_PER_CLIENT": "-5"},
	} {
		bad["TABLE_NAME"] = "t"
		if _, err := ConfigFromEnv(lookup(bad)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestNewWiresLimits(t *testing.T) {
	d := New(Config{TableName: "t", WorkspaceRateLimit: 100, WorkspaceRateBurst: 200, WorkspaceRateLease: 20, AuthFailuresPerClient: 120}, nil, nil, nil)
	if d.Limiter == nil || d.Auth.Limiter != d.Limiter || d.Limiter.Store != d.Store || d.Limiter.Rate != 100 ||
		d.Limiter.Burst != 200 || d.Limiter.LeaseSize() != 20 {
		t.Errorf("limiter %+v, authenticator's %v", d.Limiter, d.Auth.Limiter)
	}
	if d.Auth.FailuresPerClient == nil || d.Auth.FailuresPerClient.Limit != 120 {
		t.Errorf("FailuresPerClient = %+v", d.Auth.FailuresPerClient)
	}
	d = New(Config{TableName: "t"}, nil, nil, nil)
	if d.Limiter != nil || d.Auth.Limiter != nil || d.Auth.FailuresPerClient != nil {
		t.Error("zero configuration must leave the limits off")
	}
}

func TestConfigSealingKeys(t *testing.T) {
	key := strings.Repeat("A", 43) + "=" // base64 of 32 zero bytes
	c, err := ConfigFromEnv(lookup(map[string]string{"TABLE_NAME": "t", "WEBHOOK_SECRETS_KEY_ID": " arn:aws:kms:ap-south-1:111122223333:key/k "}))
	if err != nil || c.WebhookSecretsKeyID != "arn:aws:kms:ap-south-1:111122223333:key/k" || c.LocalSealingKey != nil {
		t.Errorf("KMS key: %+v, %v", c, err)
	}
	c, err = ConfigFromEnv(lookup(map[string]string{"TABLE_NAME": "t", "LOCAL_SEALING_KEY": key}))
	if err != nil || len(c.LocalSealingKey) != 32 || c.WebhookSecretsKeyID != "" {
		t.Errorf("local key: %+v, %v", c, err)
	}
	if c, err := ConfigFromEnv(lookup(map[string]string{"TABLE_NAME": "t"})); err != nil || c.LocalSealingKey != nil || c.WebhookSecretsKeyID != "" {
		t.Errorf("neither: %+v, %v", c, err)
	}
	_, err = ConfigFromEnv(lookup(map[string]string{"TABLE_NAME": "t", "WEBHOOK_SECRETS_KEY_ID": "alias/x", "LOCAL_SEALING_KEY": key}))
	if err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("both set: %v", err)
	}
	for _, bad := range []string{"c2hvcnQ=", strings.Repeat("A", 44), "not base64!"} {
		_, err := ConfigFromEnv(lookup(map[string]string{"TABLE_NAME": "t", "LOCAL_SEALING_KEY": bad}))
		if err == nil || !strings.Contains(err.Error(), "LOCAL_SEALING_KEY") || strings.Contains(err.Error(), bad) {
			t.Errorf("LOCAL_SEALING_KEY=%q: %v (must refuse without echoing the value)", bad, err)
		}
	}
}
