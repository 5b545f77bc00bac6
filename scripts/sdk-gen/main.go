// Command sdk-gen writes the Go or the Node.js SDK of a Pulumi package from
// its schema, with Pulumi's own code generators (pkg/v3/codegen/go and
// pkg/v3/codegen/nodejs, the ones behind `pulumi package gen-sdk --language
// go|nodejs`); with -program, it prints the TypeScript program `pulumi import`
// prints for a resource it imported (program.go). Built and run by
// scripts/gen-sdk; see CONTRIBUTING.md, "The SDK generator".
//
//	sdk-gen -language go|nodejs [-sdk-version vX.Y.Z] SCHEMA.json OUTDIR
//	sdk-gen -program -language nodejs SCHEMA.json STACK.json TYPE NAME
//
// STACK.json is the output of `pulumi stack export --show-secrets` after
// `pulumi import TYPE NAME ID`; the program goes to stdout.
//
// It runs offline and starts no plugin: `pulumi package gen-sdk` would ask the
// language host for the SDK, and the hosts built here predate that call. The
// schema must be self-contained (no references to other packages); for Go it
// names its import path in language.go.importBasePath.
//
// For Go, OUTDIR receives the generated files and a go.mod whose
// github.com/pulumi/pulumi/sdk/v3 requirement is -sdk-version (by default the
// sdk/v3 this command was built with, the one the generated code is written
// for). For Node.js, OUTDIR receives the TypeScript sources with the
// generator's package.json and tsconfig.json (-sdk-version does not apply).
// OUTDIR must not exist or be empty: the caller decides what replaces what.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"sort"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodegen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"golang.org/x/mod/modfile"
	modsemver "golang.org/x/mod/semver"
)

const sdkModule = "github.com/pulumi/pulumi/sdk/v3"

// noReferences is the schema loader: a reference to another package's schema
// would need that package's plugin, which this command does not start.
type noReferences struct{}

func (noReferences) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q: only self-contained schemas are supported", pkg)
}

func (l noReferences) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, nil)
}

func (l noReferences) LoadPackageReference(pkg string, v *semver.Version) (schema.PackageReference, error) {
	_, err := l.LoadPackage(pkg, v)
	return nil, err
}

func (l noReferences) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, nil)
}

// tool names the generator in the generated files' "do not edit" headers.
const tool = "pulumi-cms scripts/gen-sdk"

func main() {
	language := flag.String("language", "", "the SDK's language: go or nodejs")
	sdkVersion := flag.String("sdk-version", linkedSDKVersion(),
		"the "+sdkModule+" version the generated go.mod requires (go only)")
	program := flag.Bool("program", false,
		"print the program `pulumi import TYPE NAME ID` prints for the resource (nodejs only)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(),
			"usage: %[1]s -language go|nodejs [-sdk-version vX.Y.Z] SCHEMA.json OUTDIR\n"+
				"       %[1]s -program -language nodejs SCHEMA.json STACK.json TYPE NAME\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	var err error
	switch {
	case *program && flag.NArg() == 4 && *language == "nodejs":
		err = runProgram(os.Stdout, flag.Arg(0), flag.Arg(1), flag.Arg(2), flag.Arg(3))
	case !*program && flag.NArg() == 2 && (*language == "go" || *language == "nodejs"):
		err = run(*language, flag.Arg(0), flag.Arg(1), *sdkVersion)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sdk-gen: %v\n", err)
		os.Exit(1)
	}
}

// linkedSDKVersion is the sdk/v3 version this binary was built with.
func linkedSDKVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == sdkModule {
				return dep.Version
			}
		}
	}
	return ""
}

func run(language, schemaPath, outDir, sdkVersion string) error {
	if language == "go" && !modsemver.IsValid(sdkVersion) {
		return fmt.Errorf("-sdk-version must be a module version such as v3.276.0, got %q", sdkVersion)
	}
	if entries, err := os.ReadDir(outDir); err == nil && len(entries) > 0 {
		return fmt.Errorf("OUTDIR %s must not exist or be empty", outDir)
	}

	spec, pkg, err := readSchema(schemaPath)
	if err != nil {
		return err
	}
	var files map[string][]byte
	if language == "go" {
		files, err = goFiles(schemaPath, spec, pkg, sdkVersion)
	} else {
		files, err = nodegen.GeneratePackage(tool, pkg, nil, nil, false, noReferences{})
	}
	if err != nil {
		return err
	}

	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		target := filepath.Join(outDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, files[name], 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "sdk-gen: wrote %d files of the %s SDK of package %s to %s\n",
		len(names), language, pkg.Name, outDir)
	return nil
}

// readSchema returns the package schema in schemaPath, as written and bound.
func readSchema(schemaPath string) (schema.PackageSpec, *schema.Package, error) {
	var spec schema.PackageSpec
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return spec, nil, err
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		return spec, nil, fmt.Errorf("%s is not a package schema: %w", schemaPath, err)
	}
	pkg, err := schema.ImportSpec(spec, nil, noReferences{}, schema.ValidationOptions{})
	if err != nil {
		return spec, nil, fmt.Errorf("%s: %w", schemaPath, err)
	}
	return spec, pkg, nil
}

// goFiles returns the Go SDK's files, with a go.mod requiring sdk/v3 at sdkVersion.
func goFiles(schemaPath string, spec schema.PackageSpec, pkg *schema.Package, sdkVersion string) (map[string][]byte, error) {
	var goInfo gogen.GoPackageInfo
	if langRaw, ok := spec.Language["go"]; ok {
		if err := json.Unmarshal(langRaw, &goInfo); err != nil {
			return nil, fmt.Errorf("%s: language.go: %w", schemaPath, err)
		}
	}
	if goInfo.ImportBasePath == "" {
		return nil, fmt.Errorf("%s: language.go.importBasePath is required (the Go import path of the SDK's root package)", schemaPath)
	}
	files, err := gogen.GeneratePackage(tool, pkg, nil)
	if err != nil {
		return nil, err
	}
	goMod, err := sdkGoMod(files["go.mod"], goInfo, sdkVersion)
	if err != nil {
		return nil, err
	}
	files["go.mod"] = goMod
	return files, nil
}

// sdkGoMod returns the SDK's go.mod: the generator's own when the schema asks
// for one (supportPack), else one in the generator's layout (the module one
// level above the import base path), requiring sdk/v3 at sdkVersion.
func sdkGoMod(generated []byte, goInfo gogen.GoPackageInfo, sdkVersion string) ([]byte, error) {
	var f *modfile.File
	if generated != nil {
		parsed, err := modfile.Parse("go.mod", generated, nil)
		if err != nil {
			return nil, fmt.Errorf("the generated go.mod does not parse: %w", err)
		}
		f = parsed
	} else {
		modulePath := goInfo.ModulePath
		if modulePath == "" {
			modulePath = path.Dir(goInfo.ImportBasePath)
		}
		f = &modfile.File{}
		if err := f.AddModuleStmt(modulePath); err != nil {
			return nil, err
		}
		if err := f.AddGoStmt("1.25"); err != nil {
			return nil, err
		}
	}
	if f.Module == nil {
		return nil, errors.New("the generated go.mod has no module statement")
	}
	if err := f.AddRequire(sdkModule, sdkVersion); err != nil {
		return nil, err
	}
	f.Cleanup()
	return f.Format()
}
