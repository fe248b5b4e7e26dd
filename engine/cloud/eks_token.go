package cloud

import (
	"strings"
	"time"
)

// The EKS authentication token and the principals EKS access entries
// name, as aws-iam-authenticator makes and checks them. The real
// provider mints tokens with these rules and the simulator's
// authenticator takes them with the same.
const (
	// EKSTokenPrefix starts every EKS token; the unpadded base64url
	// encoding of a presigned STS GetCallerIdentity URL follows it.
	EKSTokenPrefix = "k8s-aws-v1."
	// EKSClusterIDHeader is the header, covered by the token's signature,
	// that names the cluster the token is for.
	EKSClusterIDHeader = "x-k8s-aws-id"
	// EKSTokenLifetime is how long EKS accepts a token after it was
	// signed, whatever the presigned URL's X-Amz-Expires says.
	EKSTokenLifetime = 15 * time.Minute
	// EKSClusterAdminPolicy is the EKS access policy that makes a
	// principal a cluster administrator.
	EKSClusterAdminPolicy = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
)

// PrincipalARN is the IAM principal an EKS access entry names for the
// caller STS GetCallerIdentity reports as callerARN: an assumed role's
// session, arn:PARTITION:sts::ACCOUNT:assumed-role/ROLE/SESSION, is its
// role, arn:PARTITION:iam::ACCOUNT:role/ROLE; any other ARN (an IAM user
// or role, a federated user) is its own principal. Like
// aws-iam-authenticator, the segments between "assumed-role" and the
// session name are all the role's. An assumed-role ARN with no session
// name is returned as it is, which names no access entry.
func PrincipalARN(callerARN string) string {
	parts := strings.SplitN(callerARN, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "sts" {
		return callerARN
	}
	res := strings.Split(parts[5], "/")
	if len(res) < 3 || res[0] != "assumed-role" {
		return callerARN
	}
	role := strings.Join(res[1:len(res)-1], "/")
	if role == "" || res[len(res)-1] == "" {
		return callerARN
	}
	return "arn:" + parts[1] + ":iam::" + parts[4] + ":role/" + role
}
