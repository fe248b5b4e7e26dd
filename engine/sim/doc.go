// Package sim is the embedded simulator of AWS, InstantStart's default
// provider. A World holds one simulated account: EC2 networks, IAM roles and
// OIDC providers, EKS control planes with their add-ons, access entries and
// pod identity associations, SageMaker HyperPod clusters with their instance
// groups, nodes (booting, deep health checks, health labels, recovery),
// events and training plans, Service Quotas, and a Kubernetes API per EKS
// cluster whose Node objects follow the HyperPod nodes, whose pods are
// bound to the nodes they fit, and whose NodePools HyperPod's managed
// Karpenter serves by adding and removing nodes, and the Helm releases of
// the charts its catalog knows (KubeRay's operator, KEDA), whose
// Deployments appear in that Kubernetes API and become available once the
// release is deployed. Each region's view implements the ports of
// engine/cloud, so the engine cannot tell the simulator from the real SDK
// clients.
//
// The simulator behaves like the real services where the engine can see it:
// the real status enums and transitions, latencies of the real order divided
// by Options.Speed, validation of required fields (as the SDK's client-side
// validation reports them) and of the documented limits, the services' typed
// errors, per-call counters, and injectable faults (see Fault).
//
// There are no background goroutines. Transitions over time are computed from
// stored timestamps and the clock whenever the world is read, and the whole
// world is saved through Storage before every call returns, so a process
// killed and restarted on the same Storage sees what its clients saw.
package sim
