// etcd v3.7.3, unchanged: built from Go modules by scripts/ensure-kubernetes.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
