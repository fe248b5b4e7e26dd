// Package simwire serves a simulated World's AWS services over their real
// AWS wire protocols on one HTTP endpoint, so that unmodified AWS tools (the
// aws-sdk-go-v2 clients with a BaseEndpoint, the aws CLI with
// --endpoint-url) can talk to the simulator. A request is routed as AWS
// routes it: the service and region come from the SigV4 credential scope,
// the operation from X-Amz-Target. Signatures are not verified, so the
// listener must stay on a loopback address.
//
// Covered so far: the JSON 1.1 services (SageMaker, FSx, Service Quotas).
// EKS (REST-JSON), EC2, IAM and STS (query) and S3 (REST-XML) are not
// served yet and answer UnknownOperationException.
package simwire
