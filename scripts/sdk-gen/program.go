package main

// The -program mode: the code `pulumi import` prints for an imported resource, written the way
// a current CLI writes it with a current Node.js language host. The CLI turns the imported
// resource's state into PCL (pkg/v3/importer, GenerateLanguageDefinitions, in
// pkg/cmd/pulumi/operations/import.go) and sends the PCL to the language host's GenerateProgram,
// which binds it again and calls pkg/v3/codegen/nodejs's generator. The Node.js host built by
// scripts/ensure-pulumi (v3.68) has no GenerateProgram, so this command does both halves in one
// process, with the package's schema given as a file in place of the plugin the CLI would ask.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	nodegen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/pkg/v3/importer"
	pkgresource "github.com/pulumi/pulumi/pkg/v3/resource"
	"github.com/pulumi/pulumi/pkg/v3/resource/stack"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
)

// onePackage is the schema loader of the -program mode: the package of the schema file, under
// its own name (the CLI would ask the plugin named by the resource's provider for it); any
// other package is refused.
type onePackage struct{ pkg *schema.Package }

func (l onePackage) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	if name != l.pkg.Name {
		return nil, fmt.Errorf("the resource needs package %q; the schema given is package %q", name, l.pkg.Name)
	}
	return l.pkg, nil
}

func (l onePackage) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, nil)
}

func (l onePackage) LoadPackageReference(name string, v *semver.Version) (schema.PackageReference, error) {
	pkg, err := l.LoadPackage(name, v)
	if err != nil {
		return nil, err
	}
	return pkg.Reference(), nil
}

func (l onePackage) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, nil)
}

// runProgram writes to w the TypeScript `pulumi import TYPE NAME ID` prints for the resource of
// type typ and name name found in stackPath, the output of `pulumi stack export --show-secrets`
// (secrets in plain text: the CLI works on the decrypted state).
func runProgram(w io.Writer, schemaPath, stackPath, typ, name string) error {
	_, pkg, err := readSchema(schemaPath)
	if err != nil {
		return err
	}
	loader := onePackage{pkg}

	snapshot, err := readStack(stackPath)
	if err != nil {
		return err
	}
	// The resource as the CLI picks it out of the stack after the import: by type and name, at
	// the stack's top level (no --parent). Its protect bit is the state's, which is what the
	// CLI's --protect made it.
	var imported *pkgresource.State
	for _, s := range snapshot {
		if !s.Delete && string(s.Type) == typ && s.URN.Name() == name && s.Parent.QualifiedType() == resource.RootStackType {
			imported = s
		}
	}
	if imported == nil {
		return fmt.Errorf("%s holds no resource %s named %q", stackPath, typ, name)
	}
	// The name table of an import given on the command line: the resource's own name.
	names := importer.NameTable{imported.URN: name}

	// Written out only once whole, so that a failure prints no part of a program.
	var out bytes.Buffer
	err = importer.GenerateLanguageDefinitions(&out, loader, func(w io.Writer, p *pcl.Program) error {
		files, err := generateNodejsProgram(p.Source(), loader)
		if err != nil {
			return err
		}
		return writeProgram(w, files)
	}, []*pkgresource.State{imported}, snapshot, names)
	if err != nil {
		return err
	}
	_, err = w.Write(out.Bytes())
	return err
}

// readStack returns the resources of a `pulumi stack export --show-secrets` file.
func readStack(path string) ([]*pkgresource.State, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var untyped apitype.UntypedDeployment
	if err := json.Unmarshal(raw, &untyped); err != nil {
		return nil, fmt.Errorf("%s is not the output of pulumi stack export: %w", path, err)
	}
	deployment, err := stack.UnmarshalUntypedDeployment(context.Background(), &untyped)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dec := config.NewErrorCrypter("the state holds encrypted secrets: give the output of pulumi stack export --show-secrets")
	states := make([]*pkgresource.State, 0, len(deployment.Resources))
	for _, res := range deployment.Resources {
		s, err := stack.DeserializeResource(res, dec)
		if err != nil {
			return nil, fmt.Errorf("%s: resource %s: %w", path, res.URN, err)
		}
		states = append(states, s)
	}
	return states, nil
}

// generateNodejsProgram is the Node.js language host's GenerateProgram (sdk/nodejs/cmd/
// pulumi-language-nodejs): the PCL parsed and bound again, with output-versioned invokes
// preferred and, as the CLI's import asks (strict = false), the non-strict bind options; then
// Pulumi's Node.js program generator. Where the host would return error diagnostics with no
// files, which the CLI then prints as an empty program, this fails naming them.
func generateNodejsProgram(source map[string]string, loader schema.ReferenceLoader) (map[string][]byte, error) {
	parser := syntax.NewParser()
	paths := make([]string, 0, len(source))
	for path := range source {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		if err := parser.ParseFile(strings.NewReader(source[path]), path); err != nil {
			return nil, err
		}
		if parser.Diagnostics.HasErrors() {
			return nil, parser.Diagnostics
		}
	}
	opts := append([]pcl.BindOption{pcl.PreferOutputVersionedInvokes}, pcl.NonStrictBindOptions()...)
	program, diags, err := pcl.BindProgram(parser.Files, schema.NewCachedLoader(loader), opts...)
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, diagnosticsError(program, diags)
	}
	files, diags, err := nodegen.GenerateProgramWithOptions(program, nodegen.ProgramOptions{Runtime: "nodejs"})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, diagnosticsError(program, diags)
	}
	return files, nil
}

func diagnosticsError(program *pcl.Program, diags hcl.Diagnostics) error {
	if program == nil {
		return diags
	}
	var text bytes.Buffer
	if err := program.NewDiagnosticWriter(&text, 0, false).WriteDiagnostics(diags); err != nil {
		return errors.Join(diags, err)
	}
	return errors.New(text.String())
}

// writeProgram writes the generated files as the CLI prints them (writeGeneratedProgram in
// import.go): by name, without the sdks/ directory, each ending in a newline.
func writeProgram(w io.Writer, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for name := range files {
		if !strings.HasPrefix(name, "sdks/") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		contents := files[name]
		if _, err := w.Write(contents); err != nil {
			return err
		}
		if len(contents) > 0 && contents[len(contents)-1] != '\n' {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
	}
	return nil
}
