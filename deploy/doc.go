// Package deploy holds what runs InstantStart in an AWS account: the
// CloudFormation template of the management environment
// (cloudformation.yaml) and the tests that keep it true to the engine, such
// as its IAM policy allowing exactly the AWS actions of engine/cloud's ports.
// It has no code of its own.
package deploy
