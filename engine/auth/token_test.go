package auth

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

func TestCreateThenAuthenticate(t *testing.T) {
	f := newFixture(t)
	secret, tok := f.create(t, "ci runner", Operator, nil)
	if !strings.HasPrefix(secret, "isk_") || len(secret) != 4+43 {
		t.Fatalf("secret has the wrong shape: %d characters", len(secret))
	}
	if tok.Name != "ci runner" || tok.Role != Operator || tok.CreatedBy != "tester" || !tok.CreatedAt.Equal(f.clock.Now()) {
		t.Fatalf("token %+v", tok)
	}
	id, err := f.svc.Authenticate(secret)
	if err != nil {
		t.Fatal(err)
	}
	want := Identity{TokenID: tok.ID, Name: "ci runner", Role: Operator, Via: "bearer"}
	if *id != want {
		t.Fatalf("identity %+v, want %+v", *id, want)
	}
	got, err := f.svc.Get(tok.ID)
	if err != nil || got.LastUsedAt == nil || !got.LastUsedAt.Equal(f.clock.Now()) {
		t.Fatalf("after use: %+v, %v", got, err)
	}
}

func TestCreateValidates(t *testing.T) {
	f := newFixture(t)
	f.create(t, "taken", Viewer, nil)
	past := f.clock.Now().Add(-time.Second)
	cases := []struct {
		name    string
		role    Role
		expires *time.Time
		field   string
	}{
		{"", Viewer, nil, "name"},
		{strings.Repeat("a", 65), Viewer, nil, "name"},
		{"bad/name", Viewer, nil, "name"},
		{"ünïcode", Viewer, nil, "name"},
		{" padded", Viewer, nil, "name"},
		{"taken", Viewer, nil, "name"},
		{"TAKEN", Operator, nil, "name"},
		{"isk_" + strings.Repeat("A", 43), Viewer, nil, "name"},
		{"ok", "ROOT", nil, "role"},
		{"ok", Viewer, &past, "expiresAt"},
		{"ok", Viewer, ptr(f.clock.Now()), "expiresAt"},
	}
	for _, c := range cases {
		_, _, err := f.svc.Create(admin, c.name, c.role, c.expires)
		var e *errs.Error
		if err == nil || errs.CodeOf(err) != errs.Validation {
			t.Errorf("Create(%q, %q): %v, want VALIDATION", c.name, c.role, err)
		} else if e = errs.As(err); e.Field != c.field {
			t.Errorf("Create(%q, %q): field %q, want %q", c.name, c.role, e.Field, c.field)
		}
	}
	if _, _, err := f.svc.Create(admin, strings.Repeat("a", 64), Viewer, nil); err != nil {
		t.Errorf("64-character name refused: %v", err)
	}
}

func TestNameIsFreeAgainAfterRevoke(t *testing.T) {
	f := newFixture(t)
	_, tok := f.create(t, "deploy", Viewer, nil)
	if _, err := f.svc.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	f.create(t, "deploy", Viewer, nil)
}

func TestAuthenticateRefuses(t *testing.T) {
	f := newFixture(t)
	f.create(t, "keeper", Admin, nil)
	revoked, rt := f.create(t, "revoked", Viewer, nil)
	if _, err := f.svc.Revoke(rt.ID); err != nil {
		t.Fatal(err)
	}
	expiring, _ := f.create(t, "expiring", Viewer, ptr(f.clock.Now().Add(time.Hour)))
	f.clock.Advance(time.Hour)
	unknown, _ := newSecret(tokenPrefix)
	cases := []struct {
		name, secret, says string
	}{
		{"empty", "", "empty"},
		{"malformed", "isk_short", "malformed"},
		{"cookie value", "iss_" + strings.Repeat("A", 43), "session cookie"},
		{"unknown", unknown, "not known"},
		{"revoked", revoked, "revoked"},
		{"expired", expiring, "expired"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.svc.Authenticate(c.secret)
			wantCode(t, err, errs.Unauthenticated)
			if !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), ": ") {
				t.Fatalf("message %q does not say %q and what to do", err, c.says)
			}
			if c.secret != "" && strings.Contains(err.Error(), c.secret) {
				t.Fatalf("message quotes the secret")
			}
		})
	}
}

func TestRevoke(t *testing.T) {
	f := newFixture(t)
	_, a1 := f.create(t, "admin one", Admin, nil)
	secret, a2 := f.create(t, "admin two", Admin, nil)
	if _, err := f.svc.Revoke("01ARZ3NDEKTSV4RRFFQ69G5FAV"); errs.CodeOf(err) != errs.NotFound {
		t.Fatalf("revoke unknown: %v, want NOT_FOUND", err)
	}
	tok, err := f.svc.Revoke(a2.ID)
	if err != nil || tok.RevokedAt == nil || tok.Active(f.clock.Now()) {
		t.Fatalf("revoke: %+v, %v", tok, err)
	}
	if _, err := f.svc.Authenticate(secret); errs.CodeOf(err) != errs.Unauthenticated {
		t.Fatalf("revoked token authenticated: %v", err)
	}
	// Revoking again changes nothing.
	again, err := f.svc.Revoke(a2.ID)
	if err != nil || !again.RevokedAt.Equal(*tok.RevokedAt) {
		t.Fatalf("second revoke: %+v, %v", again, err)
	}
	_, err = f.svc.Revoke(a1.ID)
	wantCode(t, err, errs.Precondition)
	if got, _ := f.svc.Get(a1.ID); !got.Active(f.clock.Now()) {
		t.Fatal("the last admin token was revoked")
	}
}

func TestLastAdminRuleIgnoresExpiredAdmins(t *testing.T) {
	f := newFixture(t)
	_, keeper := f.create(t, "keeper", Admin, nil)
	_, short := f.create(t, "short", Admin, ptr(f.clock.Now().Add(time.Minute)))
	f.clock.Advance(time.Hour)
	if _, err := f.svc.Revoke(short.ID); err != nil {
		t.Fatalf("revoking an expired admin token: %v", err)
	}
	_, err := f.svc.Revoke(keeper.ID)
	wantCode(t, err, errs.Precondition)
}

func TestListNewestFirstWithRevoked(t *testing.T) {
	f := newFixture(t)
	var ids []string
	for _, n := range []string{"a", "b", "c"} {
		_, tok := f.create(t, n, Viewer, nil)
		ids = append(ids, tok.ID)
	}
	if _, err := f.svc.Revoke(ids[1]); err != nil {
		t.Fatal(err)
	}
	list, err := f.svc.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tok := range list {
		got = append(got, tok.Name)
	}
	if strings.Join(got, ",") != "c,b,a" || list[1].RevokedAt == nil {
		t.Fatalf("list %v", got)
	}
}

func TestLastUsedAtIsWrittenAtMostOncePerMinute(t *testing.T) {
	f := newFixture(t)
	secret, tok := f.create(t, "busy", Viewer, nil)
	start := f.clock.Now()
	steps := []struct {
		advance time.Duration
		want    time.Time
	}{
		{0, start},
		{30 * time.Second, start},
		{29 * time.Second, start},
		{time.Second, start.Add(time.Minute)},
		{59 * time.Second, start.Add(time.Minute)},
		{2 * time.Minute, start.Add(time.Minute + 59*time.Second + 2*time.Minute)},
	}
	for i, s := range steps {
		f.clock.Advance(s.advance)
		if _, err := f.svc.Authenticate(secret); err != nil {
			t.Fatal(err)
		}
		got, _ := f.svc.Get(tok.ID)
		if got.LastUsedAt == nil || !got.LastUsedAt.Equal(s.want) {
			t.Fatalf("step %d: LastUsedAt %v, want %v", i, got.LastUsedAt, s.want)
		}
	}
}

// TestSecretsStayOutOfEventsAndRecords checks that nothing this package
// stores reaches the public event log, and that no value a client can see
// holds a secret or its hash.
func TestSecretsStayOutOfEventsAndRecords(t *testing.T) {
	f := newFixture(t)
	res, err := f.svc.Bootstrap(t.TempDir(), "")
	if err != nil || !res.Created {
		t.Fatal(res, err)
	}
	secret, tok := f.create(t, "agent", Operator, nil)
	if _, err := f.svc.Authenticate(secret); err != nil {
		t.Fatal(err)
	}
	cookie, _, _, err := f.svc.Login(secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Session(cookie); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"input": map[string]any{"note": secret}})
	if err := f.svc.Record(AuditRecord{TokenName: "agent", Mutation: "createToken", Arguments: args, Outcome: "OK", Message: "made " + secret}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	forbidden := []string{secret, hashSecret(secret), cookie, hashSecret(cookie)}

	if n := f.st.LastSequence(); n != 0 {
		t.Errorf("auth appended %d events to the public log", n)
	}
	err = f.st.History(0, f.st.LastSequence(), store.Filter{}, func(ev *store.Event) (bool, error) {
		raw, _ := json.Marshal(ev)
		for _, s := range forbidden {
			if strings.Contains(string(raw), s) {
				t.Errorf("event %d holds a secret or its hash", ev.Seq)
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = f.st.View(func(tx *store.Tx) error {
		for _, index := range []string{indexToken, indexTokenHash, indexSession, indexTokenSessions, indexAudit} {
			err := tx.ScanIndex(index, "", func(key, value string) (bool, error) {
				for _, s := range []string{secret, cookie} {
					if strings.Contains(key+value, s) {
						t.Errorf("index %s stores a secret in the clear", index)
					}
				}
				return true, nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	list, _ := f.svc.List()
	page, _ := f.svc.AuditLog(AuditFilter{}, store.PageRequest{First: 0, After: "", Count: true})
	for _, v := range []any{list, page} {
		raw, _ := json.Marshal(v)
		for _, s := range forbidden {
			if strings.Contains(string(raw), s) {
				t.Errorf("%s holds a secret or its hash", raw)
			}
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	f := newFixture(t)
	secret, tok := f.create(t, "shared", Operator, nil)
	done := make(chan error, 40)
	for i := range 40 {
		go func() {
			var err error
			switch i % 4 {
			case 0:
				_, err = f.svc.Authenticate(secret)
			case 1:
				var cookie string
				if cookie, _, _, err = f.svc.Login(secret); err == nil {
					_, err = f.svc.Session(cookie)
				}
			case 2:
				err = f.svc.Record(AuditRecord{TokenName: "shared", Mutation: "m", Outcome: "OK"})
			case 3:
				f.clock.Advance(time.Second)
				_, err = f.svc.List()
			}
			done <- err
		}()
	}
	for range 40 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if page, _ := f.svc.AuditLog(AuditFilter{}, store.PageRequest{First: 0, After: "", Count: true}); page.TotalCount != 10 {
		t.Fatalf("%d audit records, want 10", page.TotalCount)
	}
	if got, _ := f.svc.Get(tok.ID); got.LastUsedAt == nil {
		t.Fatal("LastUsedAt not set")
	}
}
