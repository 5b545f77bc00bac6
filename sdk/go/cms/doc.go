// Managed Kubernetes clusters of the Cluster Management Service.
package cms
