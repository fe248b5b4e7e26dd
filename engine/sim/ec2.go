package sim

import "github.com/instantstart/instantstart/engine/cloud"

// ec2API is one region's view of the simulated EC2.
type ec2API struct {
	w      *World
	region string
}

var _ cloud.EC2 = (*ec2API)(nil)
