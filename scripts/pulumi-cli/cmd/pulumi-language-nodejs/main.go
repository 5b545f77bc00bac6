// Command pulumi-language-nodejs is a small Node.js language host for the
// Pulumi CLI, written for pulumi-cms.
//
// Why it exists: upstream's language host lives in its own Go module
// (github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3). That
// module has no version tags, and the Go module proxy reachable from our
// machines serves no version of it for the v3.248.0 release commit, so
// scripts/ensure-pulumi cannot build it. This host implements the part of the
// LanguageRuntime gRPC service that `pulumi preview/up/refresh/destroy` need
// for a TypeScript/JavaScript program: it starts Node.js on the program runner
// shipped in the program's own @pulumi/pulumi npm package
// (@pulumi/pulumi/cmd/run), exactly as upstream's host does, passing the
// engine's settings as command-line flags and environment variables.
//
// Not supported (upstream features this project does not use): plugin
// discovery from node_modules (GetRequiredPackages returns nothing, so the
// engine never tries to download a provider), source-based plugins
// (RunPlugin), policy packs, code generation, `--sync` invokes, debugger
// attach, and package managers other than npm for `pulumi install`.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// nodeExitedAfterLoggingError is the exit code @pulumi/pulumi/cmd/run uses
// when it already reported the program's error to the user; the engine is then
// told to bail without printing anything more.
const nodeExitedAfterLoggingError = 32

func main() {
	// The engine starts a language plugin as
	//   pulumi-language-nodejs [--logtostderr] [-v=N] [--tracing URL] ENGINE_ADDRESS
	// Older engines also passed runtime options as flags; accept and ignore them.
	flags := flag.NewFlagSet("pulumi-language-nodejs", flag.ContinueOnError)
	flags.Bool("logtostderr", false, "log to stderr (ignored)")
	flags.Bool("logflow", false, "flow logging to child processes (ignored)")
	flags.Int("v", 0, "log verbosity (ignored)")
	flags.String("tracing", "", "tracing endpoint (ignored)")
	flags.String("root", "", "project root (ignored)")
	flags.Bool("typescript", true, "runtime option (ignored, read from RunRequest)")
	flags.String("tsconfig", "", "runtime option (ignored, read from RunRequest)")
	flags.String("nodeargs", "", "runtime option (ignored, read from RunRequest)")
	flags.String("packagemanager", "", "runtime option (ignored, read from RunRequest)")
	if err := flags.Parse(os.Args[1:]); err != nil {
		fatalf("%v", err)
	}

	var engineAddress string
	if args := flags.Args(); len(args) > 0 {
		engineAddress = args[0]
	}

	host := &nodeLanguageHost{engineAddress: engineAddress}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
	})
	if err != nil {
		fatalf("could not start language host RPC server: %v", err)
	}

	// The engine reads exactly one line from stdout: the port we listen on.
	fmt.Printf("%d\n", handle.Port)

	if err := <-handle.Done; err != nil {
		fatalf("language host RPC stopped serving: %v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: "+format+"\n", args...)
	os.Exit(1)
}

type nodeLanguageHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	engineAddress string
}

func (h *nodeLanguageHost) Handshake(
	_ context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	if req.GetEngineAddress() != "" {
		h.engineAddress = req.GetEngineAddress()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *nodeLanguageHost) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: strings.TrimPrefix(version.Version, "v")}, nil
}

// GetRequiredPlugins reports no plugins: pulumi-cms programs use only the
// dynamic provider, which ships next to the CLI (pulumi-resource-pulumi-nodejs).
func (h *nodeLanguageHost) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *nodeLanguageHost) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *nodeLanguageHost) RuntimeOptionsPrompts(
	context.Context, *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

func (h *nodeLanguageHost) About(context.Context, *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, errors.New("could not find node on $PATH")
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("running %s --version: %w", node, err)
	}
	return &pulumirpc.AboutResponse{
		Executable: node,
		Version:    strings.TrimPrefix(strings.TrimSpace(string(out)), "v"),
	}, nil
}

func (h *nodeLanguageHost) GetProgramDependencies(
	context.Context, *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	return &pulumirpc.GetProgramDependenciesResponse{}, nil
}

// InstallDependencies runs `npm install` in the program directory
// (`pulumi install`, `pulumi new`).
func (h *nodeLanguageHost) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest,
	server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse],
) error {
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetDirectory()
	}
	cmd := exec.CommandContext(server.Context(), "npm", "install")
	cmd.Dir = dir
	cmd.Stdout = streamWriter(func(b []byte) error {
		return server.Send(&pulumirpc.InstallDependenciesResponse{Stdout: b})
	})
	cmd.Stderr = streamWriter(func(b []byte) error {
		return server.Send(&pulumirpc.InstallDependenciesResponse{Stderr: b})
	})
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm install in %s: %w", dir, err)
	}
	return nil
}

type streamWriter func([]byte) error

func (w streamWriter) Write(p []byte) (int, error) {
	if err := w(bytes.Clone(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// runtimeOptions are the `runtime.options` of Pulumi.yaml that this host honours.
type runtimeOptions struct {
	typescript bool
	tsconfig   string
	nodeargs   []string
}

func parseRuntimeOptions(opts *structpb.Struct) (runtimeOptions, error) {
	result := runtimeOptions{typescript: true}
	for key, value := range opts.AsMap() {
		switch key {
		case "typescript":
			b, ok := value.(bool)
			if !ok {
				return result, fmt.Errorf("runtime option typescript must be a boolean, got %v", value)
			}
			result.typescript = b
		case "tsconfig":
			s, ok := value.(string)
			if !ok {
				return result, fmt.Errorf("runtime option tsconfig must be a string, got %v", value)
			}
			result.tsconfig = s
		case "nodeargs":
			s, ok := value.(string)
			if !ok {
				return result, fmt.Errorf("runtime option nodeargs must be a string, got %v", value)
			}
			result.nodeargs = strings.Fields(s)
		default:
			// packagemanager and anything newer: not needed to run a program.
		}
	}
	return result, nil
}

// Run executes the program: node [nodeargs] <@pulumi/pulumi/cmd/run> <flags> <entry point> [args].
func (h *nodeLanguageHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	programDir := info.GetProgramDirectory()
	if programDir == "" {
		programDir = req.GetPwd()
	}
	opts, err := parseRuntimeOptions(info.GetOptions())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	node, err := exec.LookPath("node")
	if err != nil {
		return &pulumirpc.RunResponse{Error: "could not find node on $PATH: install Node.js"}, nil
	}

	runPath, err := resolveRunScript(ctx, node, programDir)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	entryPoint := info.GetEntryPoint()
	if entryPoint == "" {
		entryPoint = req.GetProgram()
	}
	if entryPoint == "" {
		entryPoint = "."
	}
	// "." means "no entry point given": @pulumi/pulumi/cmd/run then uses the
	// `main`/`exports` of package.json. Relative entry points are relative to
	// the program directory, which is also the runner's working directory.

	args := append([]string{}, opts.nodeargs...)
	args = append(args, runPath,
		"--monitor", req.GetMonitorAddress(),
		"--engine", h.engineAddress,
		"--project", req.GetProject(),
		"--stack", req.GetStack(),
		"--pwd", programDir,
	)
	if org := req.GetOrganization(); org != "" {
		args = append(args, "--organization", org)
	}
	if root := info.GetRootDirectory(); root != "" {
		args = append(args, "--root-directory", root)
	}
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	if p := req.GetParallel(); p > 0 {
		args = append(args, "--parallel", strconv.Itoa(int(p)))
	}
	args = append(args, entryPoint)
	args = append(args, req.GetArgs()...)

	config, err := json.Marshal(nonNilMap(req.GetConfig()))
	if err != nil {
		return nil, err
	}
	secretKeys, err := json.Marshal(nonNilSlice(req.GetConfigSecretKeys()))
	if err != nil {
		return nil, err
	}

	env := append(os.Environ(),
		"PULUMI_CONFIG="+string(config),
		"PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys),
		"PULUMI_NODEJS_TYPESCRIPT="+strconv.FormatBool(opts.typescript),
	)
	if opts.tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+opts.tsconfig)
	}

	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = programDir
	cmd.Env = env
	// The engine shows our stdout/stderr as the program's output.
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if exitErr.ExitCode() == nodeExitedAfterLoggingError {
				return &pulumirpc.RunResponse{Bail: true}, nil
			}
			return &pulumirpc.RunResponse{
				Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode()),
			}, nil
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Problem executing program (could not run node): %v", err)}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

// resolveRunScript finds @pulumi/pulumi/cmd/run as the program's own Node.js
// module resolution does (node_modules walking up from the program directory,
// then NODE_PATH), so the program and the runner share one @pulumi/pulumi.
func resolveRunScript(ctx context.Context, node, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, node, "-e", "console.log(require.resolve('@pulumi/pulumi/cmd/run'))")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf(
			"it looks like the Pulumi SDK has not been installed: could not resolve @pulumi/pulumi/cmd/run "+
				"from %s (run `npm install` there, or set NODE_PATH): %v\n%s", dir, err, lastLines(stderr.String(), 5))
	}
	return strings.TrimSpace(string(out)), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func nonNilSlice(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

var _ io.Writer = streamWriter(nil)
