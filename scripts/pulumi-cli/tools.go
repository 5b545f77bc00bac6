//go:build tools

// Package tools pins the main packages that scripts/ensure-pulumi builds, so
// that `go mod tidy` keeps every module they need in go.mod and go.sum.
package tools

import (
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
)
