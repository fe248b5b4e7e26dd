package awscloud

import (
	"fmt"
	"regexp"
)

// regionPattern matches AWS region codes in every partition: us-east-1,
// us-gov-west-1, cn-north-1, eu-isoe-west-1, eusc-de-east-1 and the like.
var regionPattern = regexp.MustCompile(`^[a-z]{2,4}(-[a-z]+)+-[0-9]{1,2}$`)

// checkRegion returns an error that says what to pass when region is not
// shaped like an AWS region code. It cannot know whether the account has the
// region enabled; the first call there says so.
func checkRegion(region string) error {
	if region == "" {
		return fmt.Errorf("no AWS region given; name a region such as us-east-1")
	}
	if !regionPattern.MatchString(region) {
		return fmt.Errorf("unknown AWS region %q; use a region code such as us-east-1 or eu-west-1", region)
	}
	return nil
}
