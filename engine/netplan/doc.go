// Package netplan plans the IPv4 address space of a cluster network: the VPC
// block, the control-plane subnets for EKS and the /20 subnets that hold
// accelerator fleets. It is pure arithmetic on net/netip prefixes and makes
// no AWS calls; callers pass in what already exists and get back what to
// create.
package netplan
