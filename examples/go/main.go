// One cluster of the Cluster Management Service from a Go program, through the Go SDK of the
// native plugin (pulumi-resource-cms), read back through the getCluster and getNodes lookups.
package main

import (
	"github.com/pulumi-cms/pulumi-cms/sdk/go/cms"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		cluster, err := cms.NewCluster(ctx, "cluster", &cms.ClusterArgs{
			ControlPlanes: pulumi.Int(cfg.RequireInt("controlPlanes")),
			Workers:       pulumi.Int(cfg.RequireInt("workers")),
			NodeSize:      pulumi.String("small"),
		}, pulumi.Timeouts(&pulumi.CustomTimeouts{Create: "20m"}))
		if err != nil {
			return err
		}
		id := cluster.ID().ToStringOutput()
		found := cms.LookupClusterOutput(ctx, cms.LookupClusterOutputArgs{Id: id})
		nodes := cms.GetNodesOutput(ctx, cms.GetNodesOutputArgs{ClusterId: id})
		ctx.Export("id", id)
		ctx.Export("name", cluster.Name)
		ctx.Export("status", found.Status())
		ctx.Export("nodeCount", nodes.Total())
		ctx.Export("kubeconfig", cluster.Kubeconfig) // a secret: [secret] in `pulumi stack output`
		return nil
	})
}
