// Package simwire serves a simulated World's AWS services over their real
// AWS wire protocols on one HTTP endpoint, so that unmodified AWS tools (the
// aws-sdk-go-v2 clients with a BaseEndpoint, the aws CLI with
// --endpoint-url) can talk to the simulator. A request is routed as AWS
// routes it: the service and region come from the SigV4 credential scope,
// the operation from X-Amz-Target (JSON 1.1: SageMaker, FSx, Service
// Quotas), the method and path (REST-JSON: EKS; REST-XML, path-style:
// S3, see s3rest.go) or the Action parameter (query: EC2, IAM, STS). Signatures are not verified, so the listener must
// stay on a loopback address.
//
// Wire names come from the SDK itself: the schemas of the EKS, IAM and STS
// modules (traits such as jsonName, xmlName, httpLabel, httpQuery), and for
// EC2, whose module has no schemas yet, the table ec2names.go that
// internal/ec2names derives from the module's serializers and
// deserializers (go generate). S3's REST-XML is written by hand for the
// subset its tools use.
package simwire
