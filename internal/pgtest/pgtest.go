// Package pgtest finds the PostgreSQL server the tests of arbiter's
// PostgreSQL engine run against: the one ARBITER_TEST_POSTGRES names, or
// else a throwaway cluster this test process starts, once, when
// PostgreSQL's programs are installed (initdb and pg_ctl on the PATH or
// under /usr/lib/postgresql). The cluster listens on a Unix socket in a
// temporary directory only, runs as the unprivileged user postgres when
// the tests run as root (initdb refuses root), and is stopped and removed
// by a watchdog once the test process is gone, however it ends.
//
// Every field a test makes is a schema of its own in that server's
// database (Field), dropped when the test ends; roles a test makes carry
// a name of their own (Name), so that test processes sharing one server
// never meet.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the server tests use: a connection string whose user may
// create schemas and roles (a superuser of a throwaway cluster).
const Env = "ARBITER_TEST_POSTGRES"

// ErrNoPostgres is Server's answer on a machine without PostgreSQL.
var ErrNoPostgres = errors.New("no PostgreSQL server: " + Env + " is not set and initdb and pg_ctl were not found " +
	"(install PostgreSQL, e.g. apt-get install postgresql, to run these tests)")

var (
	once      sync.Once
	serverURL string
	serverErr error
)

// Server returns the connection string of the test server, starting the
// throwaway cluster the first time it is needed. Its error is
// ErrNoPostgres when there is no PostgreSQL to be had.
func Server() (string, error) {
	once.Do(func() {
		if u := strings.TrimSpace(os.Getenv(Env)); u != "" {
			serverURL = u
			return
		}
		serverURL, serverErr = startCluster()
	})
	return serverURL, serverErr
}

// URL is Server for a test: it skips t, saying why, when there is no
// PostgreSQL at all, and fails it when the cluster could not start.
func URL(t testing.TB) string {
	t.Helper()
	u, err := Server()
	switch {
	case errors.Is(err, ErrNoPostgres):
		t.Skip(err)
	case err != nil:
		t.Fatalf("start PostgreSQL for the tests: %v", err)
	}
	return u
}

var counter atomic.Int64

// Name returns a name no other test, in this process or another one
// sharing the server, uses: prefix, the process id, a counter and a few
// random letters. It is a valid unquoted identifier if prefix is.
func Name(prefix string) string {
	b := make([]byte, 3)
	rand.Read(b)
	return fmt.Sprintf("%s_%d_%d_%s", prefix, os.Getpid(), counter.Add(1), hex.EncodeToString(b))
}

// Field returns a connection string for a field of its own on the test
// server: the server's, with search_path naming a schema no one uses yet
// (Create makes it). The schema is dropped when t ends.
func Field(t testing.TB) string {
	t.Helper()
	_, conn := Schema(t)
	return conn
}

// WithParam returns the connection string conn with key set to value,
// as a URL query parameter or a key=value pair, as conn is written.
func WithParam(conn, key, value string) string {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		u, err := url.Parse(conn)
		if err != nil {
			return conn
		}
		q := u.Query()
		q.Set(key, value)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return conn + " " + key + "=" + value
}

// Exec runs statements on the test server as its own user (a superuser),
// outside any field: creating roles, granting, dropping.
func Exec(t testing.TB, conn string, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ExecIn(ctx, conn, sql, args...); err != nil {
		t.Errorf("%s: %v", sql, err)
	}
}

// ExecIn runs statements on the server conn names, in the schema its
// search_path names, connecting as a pooler in transaction pooling mode
// lets a client (PoolerEnv): the schema is set in a transaction around
// the statements, not at the start of the session, and no statement is
// prepared by name.
func ExecIn(ctx context.Context, conn string, sql string, args ...any) error {
	cfg, err := pgx.ParseConfig(conn)
	if err != nil {
		return err
	}
	schema := cfg.RuntimeParams["search_path"]
	delete(cfg.RuntimeParams, "search_path")
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to the test server: %w", err)
	}
	defer c.Close(ctx)
	if schema == "" {
		_, err = c.Exec(ctx, sql, args...)
		return err
	}
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT set_config('search_path', $1, true)`, schema); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, sql, args...); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Role creates a login role with a name of its own (Name(prefix)),
// member of the roles in memberOf, and returns its name and a
// connection string for the field conn names that logs in as it. The
// role is dropped when t ends, with whatever it was granted.
func Role(t testing.TB, conn, prefix string, memberOf ...string) (string, string) {
	t.Helper()
	base := URL(t)
	name := Name(prefix)
	Exec(t, base, `CREATE ROLE `+name+` LOGIN`)
	for _, r := range memberOf {
		Exec(t, base, `GRANT `+pgx.Identifier{r}.Sanitize()+` TO `+name)
	}
	t.Cleanup(func() {
		Exec(t, base, `DROP OWNED BY `+name)
		Exec(t, base, `DROP ROLE IF EXISTS `+name)
	})
	return name, WithParam(conn, "user", name)
}

// startCluster starts a throwaway cluster and returns its connection
// string.
func startCluster() (string, error) {
	bin, err := binDir()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "arbiter-pg-")
	if err != nil {
		return "", err
	}
	run, err := runner(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	data := filepath.Join(dir, "data")
	initdb := []string{filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"}
	if out, err := run(append(initdb, "--locale=C.UTF-8")...); err != nil {
		// A system without the C.UTF-8 locale: plain C.
		os.RemoveAll(data)
		if out2, err2 := run(append(initdb, "--locale=C")...); err2 != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("initdb: %v\n%s\n%s", err2, out, out2)
		}
	}
	// Durability is not what the tests are about: fsync off makes them
	// several times faster. Plenty of connections for the multi-process
	// tests.
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off "+
		"-c max_connections=300 -c shared_buffers=64MB", dir)
	if out, err := run(filepath.Join(bin, "pg_ctl"), "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return "", fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	if err := watchdog(dir, bin); err != nil {
		run(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop")
		os.RemoveAll(dir)
		return "", err
	}
	return "host=" + dir + " port=5432 user=postgres dbname=postgres", nil
}

// binDir finds PostgreSQL's programs: on the PATH, or the newest
// version under /usr/lib/postgresql (Debian's layout).
func binDir() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", ErrNoPostgres
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// runner returns how to run PostgreSQL's programs on dir: directly, or
// as the user postgres when this process is root (initdb refuses root),
// dir then being handed to that user.
func runner(dir string) (func(args ...string) ([]byte, error), error) {
	direct := func(args ...string) ([]byte, error) { return exec.Command(args[0], args[1:]...).CombinedOutput() }
	if os.Geteuid() != 0 {
		return direct, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, and there is no user postgres to run PostgreSQL as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return func(args ...string) ([]byte, error) {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		runAs(cmd, uid, gid)
		return cmd.CombinedOutput()
	}, nil
}

// watchdog starts a shell, in a session of its own, that waits for this
// process to end and then stops the cluster and removes dir: the tests
// need not remember to, and a test binary killed by a timeout leaves
// nothing running.
func watchdog(dir, bin string) error {
	stop := fmt.Sprintf("%s -D %s -m immediate stop", filepath.Join(bin, "pg_ctl"), filepath.Join(dir, "data"))
	if os.Geteuid() == 0 {
		stop = "runuser -u postgres -- " + stop
	}
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done; %s >/dev/null 2>&1; rm -rf %s", os.Getpid(), stop, dir)
	cmd := exec.Command("sh", "-c", script)
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the cluster's watchdog: %v", err)
	}
	go cmd.Wait()
	return nil
}
