package cloud

import (
	"fmt"
	"net/netip"
	"strings"
)

// BucketNameProblem says what S3 would refuse in a general purpose
// bucket's name, "" when it takes it. Every area that names a bucket
// checks it here, so they all refuse what S3 refuses, and only that.
func BucketNameProblem(name string) string {
	switch {
	case len(name) < 3 || len(name) > 63:
		return fmt.Sprintf("it is %d characters long; S3 takes 3 to 63", len(name))
	case strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" || !bucketEdge(name[0]) || !bucketEdge(name[len(name)-1]):
		return "S3 takes only lower-case letters, digits, dots and hyphens, starting and ending with a letter or a digit"
	case strings.Contains(name, ".."):
		return "it has two dots in a row; S3 refuses that"
	}
	for _, p := range []string{"xn--", "sthree-", "amzn-s3-demo-"} {
		if strings.HasPrefix(name, p) {
			return "it starts with " + p + ", which S3 keeps for itself"
		}
	}
	for _, s := range []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"} {
		if strings.HasSuffix(name, s) {
			return "it ends with " + s + ", which S3 keeps for itself"
		}
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return "it is shaped like an IP address; S3 refuses that"
	}
	return ""
}

func bucketEdge(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// MLflowServiceAccount is the Kubernetes service account, in the shared
// bucket's namespace, that training pods run as to reach the cluster's
// SageMaker managed MLflow tracking server: the MLFLOW feature makes it and
// gives it, by pod identity, an IAM role allowed to call that one server,
// and the jobs that report to MLflow name it. It is here, apart from both
// areas, so that the features and training areas name the same account.
const MLflowServiceAccount = "instantstart-mlflow"
