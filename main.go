// Command instantstart is the InstantStart control plane for SageMaker
// HyperPod clusters on EKS.
//
//	instantstart [serve] [flags]   serve the UI, GraphQL, MCP and metrics (the default)
//	instantstart mcp --stdio ...   bridge MCP over stdio to a running server
//	instantstart version           print the version
//	instantstart healthcheck       exit 0 when the local server answers /healthz
//	instantstart backup > FILE     write a backup of the store to stdout
//	instantstart restore < FILE    load a backup into a new data directory
//
// Run "instantstart serve -h" for the flags.
package main

//go:generate go tool gqlgen generate

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simwire"
	"github.com/instantstart/instantstart/mcp"
	"github.com/instantstart/instantstart/resolvers/server"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches on the subcommand; with none (or only flags) it serves.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stderr)
	case "mcp":
		return mcpBridge(args, stdin, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	case "healthcheck":
		return healthcheck(args, stderr)
	case "backup":
		return backupCmd(args, stdout, stderr)
	case "restore":
		return restoreCmd(args, stdin, stderr)
	case "image":
		return imageCmd(args, stdout, stderr)
	case "help":
		usage(stderr)
		return exitOK
	default:
		fmt.Fprintf(stderr, "instantstart: unknown command %q\n", cmd)
		usage(stderr)
		return exitUsage
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `usage: instantstart [serve] [flags]

commands:
  serve   serve the GraphQL API, MCP, health, readiness and metrics (the default)
  mcp     bridge MCP over stdio to a running server (instantstart mcp --stdio --url ... --token-env ...)
  version print the version, the Go version and the source revision
  healthcheck
          exit 0 when the server at --url (http://127.0.0.1:3099) answers /healthz, 1 otherwise
          (the container image's health check: the image has no shell or curl)
  backup  write a backup of the store in --data-dir to stdout (instantstart backup --data-dir DIR > FILE);
          a running server holding DIR streams it, given an admin token (--token-env, else DIR/admin-token)
  restore load a backup from stdin into --data-dir, a new or empty directory (instantstart restore --data-dir DIR < FILE)
  image push
          push the container image (an OCI layout from go run ./deploy/image) to ECR, logged in with
          ECR's GetAuthorizationToken (instantstart image push --repository ACCOUNT.dkr.ecr.REGION.amazonaws.com/instantstart --layout DIR)

run "instantstart serve -h", "instantstart mcp -h", "instantstart backup -h", "instantstart restore -h" or "instantstart image push -h" for the flags`)
}

// serveFlags are the settings of serve, each from a flag or else from its
// environment variable.
type serveFlags struct {
	listen    string
	dataDir   string
	provider  string
	simSpeed  float64
	region    string
	logFormat string
	logLevel  string
	faults    []sim.Fault
	simAWS    string
	chartDir  string

	allowedOrigins  []string
	tlsCert, tlsKey string
	metricsAuth     bool
}

func serve(args []string, stderr io.Writer) int {
	f, err := parseServeFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "instantstart: %v\n", err)
		return exitUsage
	}
	log, err := newLogger(stderr, f.logFormat, f.logLevel)
	if err != nil {
		fmt.Fprintf(stderr, "instantstart: %v\n", err)
		return exitUsage
	}
	srv, err := server.New(server.Config{
		Engine: app.Config{
			DataDir:      f.dataDir,
			Provider:     f.provider,
			SimSpeed:     f.simSpeed,
			Region:       f.region,
			SimFaults:    f.faults,
			SimAWSListen: f.simAWS,
			HelmChartDir: f.chartDir,
			AdminToken:   os.Getenv("INSTANTSTART_ADMIN_TOKEN"),
		},
		Listen:  f.listen,
		Version: buildVersion(),
		Logger:  log,

		AllowedOrigins: f.allowedOrigins,
		TLSCert:        f.tlsCert,
		TLSKey:         f.tlsKey,
		MetricsAuth:    f.metricsAuth,
	})
	if err != nil {
		log.Error("cannot start", "err", err)
		return exitError
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Run(ctx); err != nil {
		log.Error("stopped with an error", "err", err)
		return exitError
	}
	return exitOK
}

func parseServeFlags(args []string, stderr io.Writer) (*serveFlags, error) {
	f := &serveFlags{}
	fs := flag.NewFlagSet("instantstart serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.listen, "listen", env("INSTANTSTART_LISTEN", "127.0.0.1:3099"), "host:port to serve on (env INSTANTSTART_LISTEN)")
	fs.StringVar(&f.dataDir, "data-dir", env("INSTANTSTART_DATA_DIR", "./data"), "directory of the store and the simulator's world (env INSTANTSTART_DATA_DIR)")
	fs.StringVar(&f.provider, "provider", env("INSTANTSTART_PROVIDER", app.ProviderSim), "sim (the embedded simulator) or aws (the standard AWS credential chain) (env INSTANTSTART_PROVIDER)")
	fs.StringVar(&f.region, "region", env("INSTANTSTART_REGION", os.Getenv("AWS_REGION")), "default AWS region (env INSTANTSTART_REGION, else AWS_REGION; the simulator's default when empty)")
	fs.StringVar(&f.chartDir, "helm-chart-dir", env("INSTANTSTART_HELM_CHART_DIR", ""), "directory of chart archives <chart>-<version>.tgz, as helm pull writes them, to install every Helm chart from instead of downloading it from its repository, for hosts that cannot reach the chart repositories (--provider aws only; env INSTANTSTART_HELM_CHART_DIR)")
	fs.StringVar(&f.logFormat, "log-format", env("INSTANTSTART_LOG_FORMAT", "text"), "text or json (env INSTANTSTART_LOG_FORMAT)")
	fs.StringVar(&f.logLevel, "log-level", env("INSTANTSTART_LOG_LEVEL", "info"), "debug, info, warn or error (env INSTANTSTART_LOG_LEVEL)")
	speed := env("INSTANTSTART_SIM_SPEED", strconv.Itoa(sim.DefaultSpeed))
	fs.StringVar(&speed, "sim-speed", speed, "how many times faster than AWS the simulator runs; the default creates a cluster in about a minute (env INSTANTSTART_SIM_SPEED)")
	fs.StringVar(&f.simAWS, "sim-aws-listen", env("INSTANTSTART_SIM_AWS_LISTEN", ""), "loopback host:port on which to serve the simulator's AWS services over their wire protocols, for the aws CLI and SDKs (--provider sim only; env INSTANTSTART_SIM_AWS_LISTEN)")
	var faultSpecs []string
	fs.Func("sim-fault", "inject a simulator fault at start, kind[:key=value,...], e.g. capacity:zone=us-east-1a (repeatable; env INSTANTSTART_SIM_FAULT, specs separated by ;)", func(spec string) error {
		if _, err := sim.ParseFault(spec); err != nil {
			return err
		}
		faultSpecs = append(faultSpecs, spec)
		return nil
	})
	fs.Func("allowed-origin", "a browser origin besides the server's own that may use cookies and WebSockets, e.g. https://instantstart.example.com (repeatable; env INSTANTSTART_ALLOWED_ORIGINS, comma-separated)", func(o string) error {
		f.allowedOrigins = append(f.allowedOrigins, o)
		return nil
	})
	fs.StringVar(&f.tlsCert, "tls-cert", env("INSTANTSTART_TLS_CERT", ""), "PEM certificate to serve HTTPS with, together with --tls-key (env INSTANTSTART_TLS_CERT)")
	fs.StringVar(&f.tlsKey, "tls-key", env("INSTANTSTART_TLS_KEY", ""), "PEM private key of --tls-cert (env INSTANTSTART_TLS_KEY)")
	metricsAuth := env("INSTANTSTART_METRICS_AUTH", "false")
	fs.StringVar(&metricsAuth, "metrics-auth", metricsAuth, "true to require a viewer token on /metrics (env INSTANTSTART_METRICS_AUTH)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if f.allowedOrigins == nil {
		for o := range strings.SplitSeq(os.Getenv("INSTANTSTART_ALLOWED_ORIGINS"), ",") {
			if o = strings.TrimSpace(o); o != "" {
				f.allowedOrigins = append(f.allowedOrigins, o)
			}
		}
	}
	if b, err := strconv.ParseBool(metricsAuth); err != nil {
		return nil, fmt.Errorf("--metrics-auth (or INSTANTSTART_METRICS_AUTH) must be true or false, got %q", metricsAuth)
	} else {
		f.metricsAuth = b
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return nil, errors.New("--tls-cert and --tls-key go together: give both or neither")
	}
	if faultSpecs == nil {
		for spec := range strings.SplitSeq(os.Getenv("INSTANTSTART_SIM_FAULT"), ";") {
			if strings.TrimSpace(spec) != "" {
				faultSpecs = append(faultSpecs, spec)
			}
		}
	}
	for _, spec := range faultSpecs {
		fault, err := sim.ParseFault(spec)
		if err != nil {
			return nil, fmt.Errorf("--sim-fault (or INSTANTSTART_SIM_FAULT): %w", err)
		}
		f.faults = append(f.faults, fault)
	}
	if f.simAWS != "" && f.provider != app.ProviderSim {
		return nil, fmt.Errorf("--sim-aws-listen (or INSTANTSTART_SIM_AWS_LISTEN) serves the simulator, so it needs --provider %s, not %q", app.ProviderSim, f.provider)
	}
	if f.simAWS != "" {
		if err := simwire.CheckAddr(f.simAWS); err != nil {
			return nil, fmt.Errorf("--sim-aws-listen (or INSTANTSTART_SIM_AWS_LISTEN): %w", err)
		}
	}
	if f.chartDir != "" && f.provider != app.ProviderAWS {
		return nil, fmt.Errorf("--helm-chart-dir (or INSTANTSTART_HELM_CHART_DIR) holds the charts of real clusters, so it needs --provider %s, not %q", app.ProviderAWS, f.provider)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q; serve takes only flags", fs.Args())
	}
	var err error
	if f.simSpeed, err = strconv.ParseFloat(speed, 64); err != nil || f.simSpeed <= 0 {
		return nil, fmt.Errorf("--sim-speed (or INSTANTSTART_SIM_SPEED) must be a positive number, got %q", speed)
	}
	if f.provider != app.ProviderSim && f.provider != app.ProviderAWS {
		return nil, fmt.Errorf("--provider (or INSTANTSTART_PROVIDER) must be %s or %s, got %q", app.ProviderSim, app.ProviderAWS, f.provider)
	}
	if f.provider == app.ProviderAWS && len(f.faults) > 0 {
		return nil, errors.New("--sim-fault needs --provider sim")
	}
	if f.listen == "" {
		return nil, errors.New("--listen (or INSTANTSTART_LISTEN) must be host:port")
	}
	if f.dataDir == "" {
		return nil, errors.New("--data-dir (or INSTANTSTART_DATA_DIR) must name a directory")
	}
	return f, nil
}

// env returns the environment variable key, or def when it is unset or empty.
func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level (or INSTANTSTART_LOG_LEVEL) must be debug, info, warn or error, got %q", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format (or INSTANTSTART_LOG_FORMAT) must be text or json, got %q", format)
}

// buildVersion is the -X version, else the module version the binary was
// built from, else "dev".
func buildVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

// versionLine is what "instantstart version" prints: the version, the
// toolchain, the platform, and the source revision when the build recorded
// it.
func versionLine() string {
	line := fmt.Sprintf("instantstart %s %s %s/%s", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if info, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			line += " revision " + rev
			if modified == "true" {
				line += " (modified)"
			}
		}
	}
	return line
}

// parseFlags parses a command's args into fs. It returns ok false, with the
// exit code to end with, when -h asked for help (exitOK) or a flag or an
// argument is wrong (exitUsage; fs has said which flag, and an argument
// is refused on stderr, followed by hint).
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer, hint string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %q%s\n", fs.Name(), fs.Args(), hint)
		return exitUsage, false
	}
	return exitOK, true
}

// healthcheckTimeout bounds the health check's request.
const healthcheckTimeout = 5 * time.Second

// healthcheck GETs the server's /healthz and succeeds on 200.
func healthcheck(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("instantstart healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", env("INSTANTSTART_URL", "http://127.0.0.1:3099"), "base URL of the server (env INSTANTSTART_URL)")
	if code, ok := parseFlags(fs, args, stderr, ""); !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(*url, "/")+"/healthz", nil)
	if err != nil {
		fmt.Fprintf(stderr, "instantstart healthcheck: --url %q: %v\n", *url, err)
		return exitUsage
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "instantstart healthcheck: %v\n", err)
		return exitError
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "instantstart healthcheck: %s answered %s\n", req.URL, resp.Status)
		return exitError
	}
	return exitOK
}

// mcpBridge serves a running server's MCP tools over stdin/stdout, for
// agents that speak MCP only over stdio.
func mcpBridge(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("instantstart mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stdio := fs.Bool("stdio", false, "serve MCP over stdin/stdout (the only transport of this command)")
	url := fs.String("url", env("INSTANTSTART_URL", "http://127.0.0.1:3099"), "base URL of the running server (env INSTANTSTART_URL)")
	tokenEnv := fs.String("token-env", "INSTANTSTART_TOKEN", "the environment variable that holds the token")
	if code, ok := parseFlags(fs, args, stderr, "; mcp takes only flags"); !ok {
		return code
	}
	if !*stdio {
		fmt.Fprintln(stderr, "instantstart mcp: pass --stdio (the server itself serves MCP over HTTP at /mcp)")
		return exitUsage
	}
	token := strings.TrimSpace(os.Getenv(*tokenEnv))
	if token == "" {
		fmt.Fprintf(stderr, "instantstart mcp: the environment variable %s holds no token; set it to a token of the server (see createToken)\n", *tokenEnv)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mcp.Bridge(ctx, *url, token, buildVersion(), stdin, stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "instantstart mcp: %v\n", err)
		return exitError
	}
	return exitOK
}
