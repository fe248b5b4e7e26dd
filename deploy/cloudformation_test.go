package deploy

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/instantstart/instantstart/deploy/image/ociimage"
	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/cloud"
)

const templateFile = "cloudformation.yaml"

// ---- the engine's IAM actions, derived from its ports -------------------

// awsPorts are the ports of cloud.Provider that are AWS service clients,
// with the service prefix of their IAM actions. Each method is an SDK
// operation, and its IAM action is prefix:Method unless renamedActions
// says otherwise.
var awsPorts = map[reflect.Type]string{
	reflect.TypeFor[cloud.SageMaker]():     "sagemaker",
	reflect.TypeFor[cloud.EKS]():           "eks",
	reflect.TypeFor[cloud.EC2]():           "ec2",
	reflect.TypeFor[cloud.IAM]():           "iam",
	reflect.TypeFor[cloud.STS]():           "sts",
	reflect.TypeFor[cloud.ServiceQuotas](): "servicequotas",
	reflect.TypeFor[cloud.S3]():            "s3",
	reflect.TypeFor[cloud.S3Presign]():     "s3",
	reflect.TypeFor[cloud.FSx]():           "fsx",
	// Amazon Managed Service for Prometheus's query API (SigV4 for aps).
	reflect.TypeFor[cloud.Prometheus](): "aps",
}

// otherPorts are the ports of cloud.Provider that call no AWS API with
// IAM actions of their own, and why.
var otherPorts = map[reflect.Type]string{
	reflect.TypeFor[cloud.ModelHub]():   "reads model metadata from the Hugging Face Hub over HTTPS",
	reflect.TypeFor[cloud.Kubernetes](): "calls the clusters' Kubernetes APIs with an EKS token (a presigned sts:GetCallerIdentity, which needs no permission); EKS access entries, not IAM actions, authorize it",
	reflect.TypeFor[cloud.Helm]():       "installs charts through the Kubernetes API, authorized as Kubernetes is",
}

// mlflowActions are the IAM actions of the MLflowTracking port, which
// calls the MLflow REST API of SageMaker managed MLflow (signed for
// sagemaker-mlflow) rather than an SDK operation: by method, the REST
// calls it makes (engine/cloud/awscloud/mlflow.go).
var mlflowActions = map[string][]string{
	"FindRun":       {"sagemaker-mlflow:GetExperimentByName", "sagemaker-mlflow:SearchRuns"}, // experiments/get-by-name, runs/search
	"MetricHistory": {"sagemaker-mlflow:GetMetricHistory"},                                   // metrics/get-history
}

// renamedActions are the operations whose IAM action is not named after
// them.
var renamedActions = map[string]string{
	"s3:HeadBucket":           "s3:ListBucket",
	"s3:ListBuckets":          "s3:ListAllMyBuckets",
	"s3:ListObjectsV2":        "s3:ListBucket",
	"s3:HeadObject":           "s3:GetObject",
	"s3:DeleteObjects":        "s3:DeleteObject",
	"s3:PutPublicAccessBlock": "s3:PutBucketPublicAccessBlock",
	// GET or POST /workspaces/<id>/api/v1/query_range.
	"aps:QueryRange":   "aps:QueryMetrics",
	"s3:GetBucketCors": "s3:GetBucketCORS",
	"s3:PutBucketCors": "s3:PutBucketCORS",
	// A multipart upload's calls are PutObject's, but for listing its
	// parts; a presigned request needs the rights of what it signs.
	"s3:CreateMultipartUpload":   "s3:PutObject",
	"s3:UploadPart":              "s3:PutObject",
	"s3:CompleteMultipartUpload": "s3:PutObject",
	"s3:ListParts":               "s3:ListMultipartUploadParts",
	"s3:PresignPutObject":        "s3:PutObject",
	"s3:PresignUploadPart":       "s3:PutObject",
}

// unpermissionedOps are port methods that need no IAM permission on real
// AWS, and why.
var unpermissionedOps = map[string]string{
	"sts:GetCallerIdentity": "STS answers it for every principal; no policy can deny it",
	"iam:ListRoles":         "the engine never calls it: the port has it for the simulator's wire tools (aws iam list-roles), as ports.go says",
}

// extraActions are the actions of the engine's policy that no port method
// is named after: permissions AWS checks besides the operation itself.
var extraActions = map[string]string{
	"iam:PassRole":                "EKS CreateCluster, SageMaker CreateCluster and CreateMlflowTrackingServer, UpdateCluster's ClusterRole, CreateAddon's and UpdateAddon's service account role and CreatePodIdentityAssociation hand the engine's roles to a service",
	"iam:CreateServiceLinkedRole": "EKS, HyperPod and FSx (and FSx's S3 data repository role) make their service-linked roles on first use in an account",
	"iam:TagRole":                 "CreateRole sends tags",
	"sagemaker:AddTags":           "CreateCluster and CreateMlflowTrackingServer send tags",
	"eks:TagResource":             "CreateCluster and CreateAddon send tags",
	"fsx:TagResource":             "CreateFileSystem and CreateDataRepositoryAssociation send tags",
}

// derivedActions returns the IAM actions of the ports' methods, by the
// tables above, and what is wrong with the tables: an MLflow method they
// do not map, an entry that names no method.
func derivedActions(ports map[reflect.Type]string, mlflow reflect.Type) (actions map[string]bool, problems []string) {
	actions = map[string]bool{}
	used := map[string]bool{}
	for typ, prefix := range ports {
		for m := range typ.Methods() {
			op := prefix + ":" + m.Name
			if _, ok := unpermissionedOps[op]; ok {
				used[op] = true
				continue
			}
			if to, ok := renamedActions[op]; ok {
				used[op] = true
				op = to
			}
			actions[op] = true
		}
	}
	for m := range mlflow.Methods() {
		as, ok := mlflowActions[m.Name]
		if !ok {
			problems = append(problems, fmt.Sprintf("cloud.MLflowTracking.%s has no entry in mlflowActions: add the sagemaker-mlflow actions of the REST calls it makes", m.Name))
			continue
		}
		used["mlflow:"+m.Name] = true
		for _, a := range as {
			actions[a] = true
		}
	}
	for op := range unpermissionedOps {
		if !used[op] {
			problems = append(problems, "unpermissionedOps "+op+" names no port method any more: remove it")
		}
	}
	for op := range renamedActions {
		if !used[op] {
			problems = append(problems, "renamedActions "+op+" names no port method any more: remove it")
		}
	}
	for m := range mlflowActions {
		if !used["mlflow:"+m] {
			problems = append(problems, "mlflowActions "+m+" names no method of cloud.MLflowTracking any more: remove it")
		}
	}
	slices.Sort(problems)
	return actions, problems
}

// compareActions says what the policy lacks of want, and what it has
// besides want and the extras.
func compareActions(want, extras, policy map[string]bool) (missing, unexpected []string) {
	for a := range want {
		if !policy[a] {
			missing = append(missing, a)
		}
	}
	for a := range policy {
		if !want[a] && !extras[a] {
			unexpected = append(unexpected, a)
		}
	}
	slices.Sort(missing)
	slices.Sort(unexpected)
	return missing, unexpected
}

func TestEveryProviderPortIsAccountedFor(t *testing.T) {
	mlflow := reflect.TypeFor[cloud.MLflowTracking]()
	for f := range reflect.TypeFor[cloud.Provider]().Fields() {
		if f.Type.Kind() != reflect.Interface {
			continue
		}
		_, isAWS := awsPorts[f.Type]
		_, isOther := otherPorts[f.Type]
		if !isAWS && !isOther && f.Type != mlflow {
			t.Errorf("cloud.Provider.%s (%s) is a port this test does not know: add it to awsPorts with its IAM service prefix, or to otherPorts with the reason it needs no IAM action", f.Name, f.Type)
		}
	}
}

func TestEnginePolicyAllowsExactlyThePortsActions(t *testing.T) {
	want, problems := derivedActions(awsPorts, reflect.TypeFor[cloud.MLflowTracking]())
	for _, p := range problems {
		t.Error(p)
	}
	extras := map[string]bool{}
	for a := range extraActions {
		extras[a] = true
		if want[a] {
			t.Errorf("extraActions %s is now a port method's action: remove it from extraActions", a)
		}
	}
	policy := policyActions(t, resource(t, loadTemplate(t), "EnginePolicy"))
	missing, unexpected := compareActions(want, extras, policy)
	for _, a := range missing {
		t.Errorf("the engine calls %s, which EnginePolicy in %s does not allow: add it", a, templateFile)
	}
	for _, a := range unexpected {
		t.Errorf("EnginePolicy allows %s, which no port method calls: remove it, or add it to extraActions with the reason AWS checks it", a)
	}
	for a := range extras {
		if !policy[a] {
			t.Errorf("extraActions %s is not in EnginePolicy: add it there or remove it here", a)
		}
	}
}

// fakeEKS is the EKS port with one more operation, to show that a new port
// method fails the comparison.
type fakeEKS interface {
	cloud.EKS
	DescribeUpdate()
}

func TestANewPortMethodIsMissingFromThePolicy(t *testing.T) {
	mlflow := reflect.TypeFor[cloud.MLflowTracking]()
	policy, _ := derivedActions(awsPorts, mlflow) // a policy true to today's ports
	ports := maps.Clone(awsPorts)
	delete(ports, reflect.TypeFor[cloud.EKS]())
	ports[reflect.TypeFor[fakeEKS]()] = "eks"
	want, _ := derivedActions(ports, mlflow)
	missing, unexpected := compareActions(want, nil, policy)
	if !slices.Equal(missing, []string{"eks:DescribeUpdate"}) || len(unexpected) > 0 {
		t.Errorf("with a port method the policy lacks: missing %q, unexpected %q; want missing [eks:DescribeUpdate] alone", missing, unexpected)
	}
}

// The role patterns of EnginePolicy follow the names the engine gives its
// roles and policies.
func TestEnginePolicyCoversTheEnginesIAMNames(t *testing.T) {
	var allowed []string // the resources EnginePolicy's Allow statements name
	for _, st := range statements(t, resource(t, loadTemplate(t), "EnginePolicy")) {
		if str(get(st, "Effect")) == "Allow" {
			allowed = append(allowed, resourceStrings(get(st, "Resource"))...)
		}
	}
	sources := map[string]string{}
	for _, c := range []struct{ file, code, pattern string }{
		{"../engine/cluster/create_iam.go", `name: "InstantStart-" + name + "-EKS"`, "role/InstantStart-*"},
		{"../engine/cluster/create_iam.go", `name: "InstantStart-" + name + "-Exec"`, "role/InstantStart-*"},
		{"../engine/features/links.go", `const iamPath = "/instantstart/"`, "role/instantstart/*"},
		{"../engine/features/links.go", `const iamPath = "/instantstart/"`, "policy/instantstart/*"},
	} {
		src, ok := sources[c.file]
		if !ok {
			b, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			src = string(b)
			sources[c.file] = src
		}
		if !strings.Contains(src, c.code) {
			t.Errorf("%s no longer has %s: make EnginePolicy's resource %s match the engine's IAM names again", c.file, c.code, c.pattern)
		}
		if !slices.ContainsFunc(allowed, func(r string) bool { return strings.HasSuffix(r, ":"+c.pattern) }) {
			t.Errorf("EnginePolicy allows no resource ending in :%s; its resources are %q", c.pattern, allowed)
		}
	}
}

func TestEnginePolicyCannotChangeItsOwnRole(t *testing.T) {
	tpl := loadTemplate(t)
	for _, st := range statements(t, resource(t, tpl, "EnginePolicy")) {
		for _, a := range scalars(get(st, "Action")) {
			if strings.Contains(a, "*") && str(get(st, "Effect")) == "Allow" {
				t.Errorf("EnginePolicy allows the wildcard action %s: list the actions", a)
			}
		}
	}
	if path := str(get(get(resource(t, tpl, "InstanceRole"), "Properties"), "Path")); strings.Contains(strings.ToLower(path), "instantstart") {
		t.Errorf("InstanceRole's path %s could match the engine's role patterns: the engine could then rewrite its own role", path)
	}
	denied := false
	for _, st := range statements(t, resource(t, tpl, "EnginePolicy")) {
		name, arg, _ := intrinsic(get(st, "Resource"))
		if str(get(st, "Effect")) == "Deny" && slices.Contains(scalars(get(st, "Action")), "iam:*") && name == "Fn::GetAtt" && getAtt(arg) == "InstanceRole.Arn" {
			denied = true
		}
	}
	if !denied {
		t.Error("EnginePolicy does not deny iam:* on the InstanceRole itself")
	}
}

func TestHostPolicyStaysSmall(t *testing.T) {
	allowed := map[string]bool{"ec2:DescribeVolumes": true, "ec2:AttachVolume": true, "ecr:GetAuthorizationToken": true, "ecr:BatchGetImage": true, "ecr:GetDownloadUrlForLayer": true}
	tpl := loadTemplate(t)
	for a := range policyActions(t, resource(t, tpl, "HostPolicy")) {
		if !allowed[a] {
			t.Errorf("HostPolicy allows %s: the host only attaches its data volume and pulls its image; engine actions belong in EnginePolicy", a)
		}
	}
	attach := 0
	for _, st := range statements(t, resource(t, tpl, "HostPolicy")) {
		if !slices.Contains(scalars(get(st, "Action")), "ec2:AttachVolume") {
			continue
		}
		attach++
		// Each resource is a !Sub ARN of one of the stack's resources, and
		// together they are the DataVolume and the Instance, nothing else.
		want := map[string]string{"DataVolume": ":volume/${DataVolume}", "Instance": ":instance/${Instance}"}
		named := map[string]int{}
		resources := get(st, "Resource")
		for _, r := range contentOf(resources) {
			name, arg, _ := intrinsic(r)
			var own []string // the names it refers to, less AWS's pseudo parameters
			for _, ref := range subRefs(str(arg)) {
				if !strings.HasPrefix(ref, "AWS::") {
					own = append(own, ref)
				}
			}
			if name != "Fn::Sub" || len(own) != 1 || want[own[0]] == "" || !strings.HasSuffix(str(arg), want[own[0]]) {
				t.Errorf("ec2:AttachVolume is allowed on %q: want only !Sub ARNs ending in %s and %s", resourceStrings(r), want["DataVolume"], want["Instance"])
				continue
			}
			named[own[0]]++
		}
		if len(contentOf(resources)) != len(want) || named["DataVolume"] != 1 || named["Instance"] != 1 {
			t.Errorf("ec2:AttachVolume is allowed on %q, not on the DataVolume and the Instance alone, each once", resourceStrings(resources))
		}
	}
	if attach != 1 {
		t.Errorf("HostPolicy has %d statements with ec2:AttachVolume, want 1", attach)
	}
}

// The role's inline policies must fit IAM's limit for them (10,240
// characters, whitespace not counted), with every reference given a length
// no AWS name reaches.
func TestRolePoliciesFitIAMLimit(t *testing.T) {
	tpl := loadTemplate(t)
	total := 0
	for _, name := range []string{"EnginePolicy", "HostPolicy", "ImportedRolesPolicy"} {
		doc, err := json.Marshal(render(get(get(resource(t, tpl, name), "Properties"), "PolicyDocument")))
		if err != nil {
			t.Fatal(err)
		}
		total += len(strings.Join(strings.Fields(string(doc)), ""))
	}
	t.Logf("the role's inline policies take at most about %d of IAM's 10,240 characters", total)
	if total > 10240 {
		t.Errorf("the role's inline policies take about %d characters; IAM allows 10,240: move a part to a managed policy", total)
	}
}

// ---- the template's structure ------------------------------------------

func TestTemplateSections(t *testing.T) {
	tpl := loadTemplate(t)
	if v := str(get(tpl, "AWSTemplateFormatVersion")); v != "2010-09-09" {
		t.Errorf("AWSTemplateFormatVersion = %q, want 2010-09-09", v)
	}
	known := []string{"AWSTemplateFormatVersion", "Description", "Metadata", "Parameters", "Rules", "Mappings", "Conditions", "Resources", "Outputs"}
	for _, k := range keys(tpl) {
		if !slices.Contains(known, k) {
			t.Errorf("unknown top-level section %s", k)
		}
	}
	for _, k := range keys(get(tpl, "Resources")) {
		r := get(get(tpl, "Resources"), k)
		if !strings.HasPrefix(str(get(r, "Type")), "AWS::") {
			t.Errorf("resource %s has type %q", k, str(get(r, "Type")))
		}
	}
}

func TestEveryParameterIsChecked(t *testing.T) {
	params := get(loadTemplate(t), "Parameters")
	if params == nil || len(params.Content) == 0 {
		t.Fatal("no parameters")
	}
	for _, name := range keys(params) {
		p := get(params, name)
		typ := str(get(p, "Type"))
		values, pattern := get(p, "AllowedValues"), str(get(p, "AllowedPattern"))
		def := get(p, "Default")
		switch {
		case typ == "":
			t.Errorf("parameter %s has no Type", name)
		case strings.HasPrefix(typ, "AWS::") || strings.HasPrefix(typ, "List<AWS::"):
			// CloudFormation checks the value exists in the account.
		case values != nil:
			if len(values.Content) == 0 {
				t.Errorf("parameter %s allows no value", name)
			}
			if def != nil && !slices.Contains(scalars(values), def.Value) {
				t.Errorf("parameter %s: its Default %q is not one of its AllowedValues", name, def.Value)
			}
		case pattern != "":
			if !strings.HasPrefix(pattern, "^") || !strings.HasSuffix(pattern, "$") {
				t.Errorf("parameter %s: AllowedPattern %s is not anchored with ^...$", name, pattern)
			}
			re, err := regexp.Compile(pattern)
			if err != nil {
				t.Errorf("parameter %s: AllowedPattern: %v", name, err)
			} else if def != nil && !re.MatchString(def.Value) {
				t.Errorf("parameter %s: its Default %q does not match its AllowedPattern", name, def.Value)
			}
		default:
			t.Errorf("parameter %s (%s) has neither AllowedValues nor AllowedPattern", name, typ)
		}
		if (values != nil || pattern != "") && str(get(p, "ConstraintDescription")) == "" {
			t.Errorf("parameter %s has no ConstraintDescription to say what it takes", name)
		}
		if str(get(p, "Description")) == "" {
			t.Errorf("parameter %s has no Description", name)
		}
	}
}

func TestImageUriPattern(t *testing.T) {
	re := regexp.MustCompile(str(get(get(get(loadTemplate(t), "Parameters"), "ImageUri"), "AllowedPattern")))
	for uri, ok := range map[string]bool{
		"123456789012.dkr.ecr.us-east-1.amazonaws.com/instantstart:v1.2.3":                             true,
		"123456789012.dkr.ecr.eu-west-2.amazonaws.com/team/instant_start:latest":                       true,
		"123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/instantstart:1":                              true,
		"123456789012.dkr.ecr.us-east-1.amazonaws.com/instantstart@sha256:" + strings.Repeat("ab", 32): true,
		"123456789012.dkr.ecr.us-east-1.amazonaws.com/instantstart:" + strings.Repeat("a", 128):        true,
		"123456789012.dkr.ecr.us-east-1.amazonaws.com/instantstart":                                    false, // no tag or digest
		"123456789012.dkr.ecr.us-east-1.amazonaws.com/instantstart:" + strings.Repeat("a", 129):        false,
		"123456789012.dkr.ecr.us-east-1.amazonaws.com/instantstart@sha256:" + strings.Repeat("ab", 31): false,
		"123456789012.dkr.ecr.us-east-1.amazonaws.com/Instantstart:v1":                                 false, // ECR names are lower case
		"123456789012.dkr.ecr.us-east-1.amazonaws.com.example.com/instantstart:v1":                     false,
		"docker.io/library/instantstart:1":                                                             false, // not ECR
		"12345678901.dkr.ecr.us-east-1.amazonaws.com/instantstart:v1":                                  false,
		"123456789012.dkr.ecr.us-east-1.amazonaws.com/instantstart:v1 --privileged":                    false, // the boot script quotes it, but no
		"123456789012.dkr.ecr.us-east-1.amazonaws.com/instantstart:v1'$(id)'":                          false,
		"123456789012.dkr.ecr.us-east-1.amazonaws.com/instantstart:.hidden":                            false,
	} {
		if got := re.MatchString(uri); got != ok {
			t.Errorf("ImageUri %q accepted = %v, want %v", uri, got, ok)
		}
	}
}

func TestImportedExecutionRolesPattern(t *testing.T) {
	re := regexp.MustCompile(str(get(get(get(loadTemplate(t), "Parameters"), "ImportedExecutionRoles"), "AllowedPattern")))
	for roles, ok := range map[string]bool{
		"":                                 true, // none: the policy is not made
		"AmazonSageMaker-HyperPod-Exec":    true,
		"AmazonSageMaker-HyperPod-*":       true,
		"ml-platform/hyperpod/*":           true,
		"ml-platform/hyperpod/exec-role":   true,
		"role+=,.@_-name":                  true,
		"*":                                false, // every role in the account
		"/leading-slash":                   false,
		"two*stars*":                       false,
		"a role":                           false,
		"arn:aws:iam::123456789012:role/x": false, // a name, not an ARN
		"exec\nrole":                       false,
		strings.Repeat("a", 512):           true, // the longest it takes
		strings.Repeat("a", 513):           false,
	} {
		if got := re.MatchString(roles); got != ok {
			t.Errorf("ImportedExecutionRoles %q accepted = %v, want %v", roles, got, ok)
		}
	}
}

// The imported clusters' roles may only be passed, only to SageMaker, and
// only when the parameter names some.
func TestImportedRolesArePassedOnlyToSageMaker(t *testing.T) {
	tpl := loadTemplate(t)
	policy := resource(t, tpl, "ImportedRolesPolicy")
	cond := str(get(policy, "Condition"))
	if cond != "PassImportedRoles" {
		t.Fatalf("ImportedRolesPolicy has the condition %q, want PassImportedRoles", cond)
	}
	// The condition is !Not [!Equals [!Ref ImportedExecutionRoles, ""]].
	not, notArg, _ := intrinsic(get(get(tpl, "Conditions"), cond))
	eq, eqArg, _ := intrinsic(firstNode(contentOf(notArg)))
	operands := contentOf(eqArg)
	notEmpty := not == "Fn::Not" &&
		len(contentOf(notArg)) == 1 &&
		eq == "Fn::Equals" &&
		len(operands) == 2 &&
		isRef(operands[0], "ImportedExecutionRoles") &&
		operands[1].Kind == yaml.ScalarNode && operands[1].Value == ""
	if !notEmpty {
		t.Errorf("the condition %s is not: ImportedExecutionRoles is not empty", cond)
	}
	if roles := contentOf(get(get(policy, "Properties"), "Roles")); len(roles) != 1 || !isRef(roles[0], "InstanceRole") {
		t.Error("ImportedRolesPolicy is not attached to the InstanceRole alone")
	}
	sts := statements(t, policy)
	if len(sts) != 1 {
		t.Fatalf("ImportedRolesPolicy has %d statements, want 1", len(sts))
	}
	st := sts[0]
	if actions := scalars(get(st, "Action")); str(get(st, "Effect")) != "Allow" || !slices.Equal(actions, []string{"iam:PassRole"}) {
		t.Errorf("ImportedRolesPolicy: %s %v, want Allow iam:PassRole only", str(get(st, "Effect")), actions)
	}
	_, res, _ := intrinsic(get(st, "Resource"))
	if got, want := str(res), "arn:${AWS::Partition}:iam::${AWS::AccountId}:role/${ImportedExecutionRoles}"; got != want {
		t.Errorf("ImportedRolesPolicy passes %q, want %q", got, want)
	}
	if to := scalars(get(get(get(st, "Condition"), "StringEquals"), "iam:PassedToService")); !slices.Equal(to, []string{"sagemaker.amazonaws.com"}) {
		t.Errorf("ImportedRolesPolicy passes the roles to %v, want sagemaker.amazonaws.com alone", to)
	}
}

// firstNode is the first of nodes, or nil.
func firstNode(nodes []*yaml.Node) *yaml.Node {
	if len(nodes) == 0 {
		return nil
	}
	return nodes[0]
}

func TestReferencesResolve(t *testing.T) {
	for _, problem := range referenceProblems(loadTemplate(t)) {
		t.Error(problem)
	}
}

// The reference check itself finds what it should.
func TestReferenceCheckFindsDanglingNames(t *testing.T) {
	var doc yaml.Node
	src := `
Parameters:
  Size: {Type: Number, AllowedValues: [1]}
Conditions:
  Big: !Equals [!Ref Size, 1]
Resources:
  Volume:
    Type: AWS::EC2::Volume
    Condition: Huge
    Properties:
      Size: !Ref Sise
      AvailabilityZone: !GetAtt Host.AvailabilityZone
      Tags:
        - {Key: a, Value: !Sub "${Volume}-${AWS::Region}-${!Literal}-${Missing}-${Gone.Arn}-${Var}"}
        - {Key: b, Value: !Sub ["${Var}", {Var: !Ref Size}]}
        - {Key: c, Value: !If [Big, x, y]}
        - {Key: d, Value: !If [Small, x, y]}
        - {Key: e, Value: !FindInMap [Nowhere, k, v]}
`
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	got := referenceProblems(doc.Content[0])
	want := []string{"Sise", "Host", "Missing", "Gone", "Var", "Huge", "Small", "Nowhere"}
	if len(got) != len(want) {
		t.Errorf("found %d problems, want %d: %q", len(got), len(want), got)
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, `"`+w+`"`) }) {
			t.Errorf("the dangling name %s was not found; problems: %q", w, got)
		}
	}
}

func TestHostSecurityGroupHasNoInbound(t *testing.T) {
	tpl := loadTemplate(t)
	groups := 0
	for _, name := range keys(get(tpl, "Resources")) {
		r := get(get(tpl, "Resources"), name)
		switch str(get(r, "Type")) {
		case "AWS::EC2::SecurityGroupIngress":
			t.Errorf("%s adds an inbound rule; the host is reached through Session Manager only", name)
		case "AWS::EC2::SecurityGroup":
			groups++
			props := get(r, "Properties")
			if get(props, "SecurityGroupIngress") != nil {
				t.Errorf("security group %s has inbound rules; it must have none", name)
			}
			egress := get(props, "SecurityGroupEgress")
			if egress == nil || len(egress.Content) == 0 {
				t.Errorf("security group %s has no egress rule, so EC2 would allow all outbound traffic", name)
				continue
			}
			for _, rule := range egress.Content {
				if p, from, to := str(get(rule, "IpProtocol")), str(get(rule, "FromPort")), str(get(rule, "ToPort")); p != "tcp" || from != "443" || to != "443" {
					t.Errorf("security group %s lets out %s %s-%s; only HTTPS (tcp 443) is needed", name, p, from, to)
				}
			}
		}
	}
	if groups != 1 {
		t.Errorf("%d security groups, want the host's one", groups)
	}
	sgs := get(get(resource(t, tpl, "Instance"), "Properties"), "SecurityGroupIds")
	if sgs == nil || len(sgs.Content) != 1 || !isRef(sgs.Content[0], "HostSecurityGroup") {
		t.Error("the Instance is not in HostSecurityGroup alone")
	}
}

func TestSharedBucketIsPrivateEncryptedVersionedAndKept(t *testing.T) {
	tpl := loadTemplate(t)
	b := resource(t, tpl, "SharedBucket")
	if str(get(b, "Type")) != "AWS::S3::Bucket" {
		t.Fatalf("SharedBucket is a %s", str(get(b, "Type")))
	}
	if d := str(get(b, "DeletionPolicy")); d != "Retain" {
		t.Errorf("SharedBucket DeletionPolicy = %q, want Retain", d)
	}
	props := get(b, "Properties")
	block := get(props, "PublicAccessBlockConfiguration")
	for _, k := range []string{"BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets"} {
		if str(get(block, k)) != "true" {
			t.Errorf("SharedBucket PublicAccessBlockConfiguration.%s is not true", k)
		}
	}
	rules := get(get(props, "BucketEncryption"), "ServerSideEncryptionConfiguration")
	if rules == nil || len(rules.Content) == 0 {
		t.Error("SharedBucket has no default encryption")
	}
	for _, r := range contentOf(rules) {
		if alg := str(get(get(r, "ServerSideEncryptionByDefault"), "SSEAlgorithm")); !slices.Contains([]string{"AES256", "aws:kms", "aws:kms:dsse"}, alg) {
			t.Errorf("SharedBucket SSEAlgorithm = %q", alg)
		}
	}
	if s := str(get(get(props, "VersioningConfiguration"), "Status")); s != "Enabled" {
		t.Errorf("SharedBucket versioning = %q, want Enabled", s)
	}

	denyPlainHTTP := false
	for _, name := range keys(get(tpl, "Resources")) {
		r := get(get(tpl, "Resources"), name)
		if str(get(r, "Type")) != "AWS::S3::BucketPolicy" || !isRef(get(get(r, "Properties"), "Bucket"), "SharedBucket") {
			continue
		}
		for _, st := range contentOf(get(get(get(r, "Properties"), "PolicyDocument"), "Statement")) {
			cond := get(get(st, "Condition"), "Bool")
			if str(get(st, "Effect")) == "Deny" && str(get(st, "Principal")) == "*" && slices.Contains(scalars(get(st, "Action")), "s3:*") &&
				str(get(cond, "aws:SecureTransport")) == "false" && len(contentOf(get(st, "Resource"))) == 2 {
				denyPlainHTTP = true
			}
		}
	}
	if !denyPlainHTTP {
		t.Error("no bucket policy of SharedBucket denies s3:* to every principal on the bucket and its objects when aws:SecureTransport is false")
	}
}

func TestHostRequiresIMDSv2AndEncryptsItsDisks(t *testing.T) {
	tpl := loadTemplate(t)
	inst := get(resource(t, tpl, "Instance"), "Properties")
	lt := get(inst, "LaunchTemplate")
	if !isRef(get(lt, "LaunchTemplateId"), "HostLaunchTemplate") {
		t.Fatal("the Instance is not launched from HostLaunchTemplate")
	}
	for _, k := range []string{"MetadataOptions", "BlockDeviceMappings", "ImageId", "UserData", "IamInstanceProfile"} {
		if get(inst, k) != nil {
			t.Errorf("the Instance sets %s itself; it belongs in HostLaunchTemplate, where this test checks it", k)
		}
	}
	data := get(get(resource(t, tpl, "HostLaunchTemplate"), "Properties"), "LaunchTemplateData")
	md := get(data, "MetadataOptions")
	if v := str(get(md, "HttpTokens")); v != "required" {
		t.Errorf("MetadataOptions.HttpTokens = %q, want required (IMDSv2 only)", v)
	}
	if v := str(get(md, "HttpPutResponseHopLimit")); v != "2" {
		t.Errorf("MetadataOptions.HttpPutResponseHopLimit = %q, want 2: the container is a hop behind the host", v)
	}
	if v := str(get(md, "HttpEndpoint")); v == "disabled" {
		t.Error("the metadata service is disabled: the container reads the instance role's credentials through it")
	}
	disks := contentOf(get(data, "BlockDeviceMappings"))
	if len(disks) == 0 {
		t.Error("no root volume mapping: the root volume would take the AMI's settings, unencrypted")
	}
	for _, d := range disks {
		if str(get(get(d, "Ebs"), "Encrypted")) != "true" {
			t.Errorf("block device %s is not encrypted", str(get(d, "DeviceName")))
		}
	}
	profile := get(get(resource(t, tpl, "InstanceProfile"), "Properties"), "Roles")
	if len(contentOf(profile)) != 1 || !isRef(profile.Content[0], "InstanceRole") {
		t.Error("InstanceProfile does not hold InstanceRole alone")
	}
	ssm := false
	for _, arn := range contentOf(get(get(resource(t, tpl, "InstanceRole"), "Properties"), "ManagedPolicyArns")) {
		_, arg, _ := intrinsic(arn)
		ssm = ssm || strings.HasSuffix(str(arg), ":iam::aws:policy/AmazonSSMManagedInstanceCore")
	}
	if !ssm {
		t.Error("InstanceRole lacks AmazonSSMManagedInstanceCore, so Session Manager cannot reach the host")
	}
}

func TestDataVolumeIsEncryptedAndOutlivesTheStack(t *testing.T) {
	v := resource(t, loadTemplate(t), "DataVolume")
	if str(get(v, "Type")) != "AWS::EC2::Volume" {
		t.Fatalf("DataVolume is a %s", str(get(v, "Type")))
	}
	for _, policy := range []string{"DeletionPolicy", "UpdateReplacePolicy"} {
		if p := str(get(v, policy)); p != "Snapshot" && p != "Retain" {
			t.Errorf("DataVolume %s = %q: deleting the stack or replacing the volume would lose the store", policy, p)
		}
	}
	if str(get(get(v, "Properties"), "Encrypted")) != "true" {
		t.Error("DataVolume is not encrypted")
	}
	if !slices.Contains(subRefs(userData(t)), "DataVolume") {
		t.Error("the boot script does not name DataVolume, so it cannot attach it")
	}
}

func TestContainerIsPublishedOnLoopbackOnly(t *testing.T) {
	script := userData(t)
	run := dockerRun(t, script)
	if v := flagValues(run, "-p", "--publish"); !slices.Equal(v, []string{"127.0.0.1:3099:3099"}) {
		t.Errorf("the container publishes %q; want exactly 127.0.0.1:3099:3099", v)
	}
	for _, arg := range run {
		if arg == "-P" || arg == "--publish-all" || strings.HasPrefix(arg, "--net") || arg == "--privileged" {
			t.Errorf("docker run has %s", arg)
		}
	}
	if v := flagValues(run, "--restart"); !slices.Equal(v, []string{"unless-stopped"}) {
		t.Errorf("--restart %q, want unless-stopped", v)
	}

	dataDir := shellVar(t, script, "DATA_DIR")
	if v := flagValues(run, "-v", "--volume"); !slices.Equal(v, []string{`"$DATA_DIR:/data"`}) {
		t.Errorf("the container's volumes are %q; want the data volume's mount, $DATA_DIR, at /data", v)
	}
	if !strings.Contains(script, `mount "$DATA_DIR"`) {
		t.Error("the boot script does not mount the data volume at $DATA_DIR")
	}
	if strings.Contains(script, "INSTANTSTART_ADMIN_TOKEN") {
		t.Error("the boot script sets INSTANTSTART_ADMIN_TOKEN, so no admin-token file is written, yet AdminTokenCommand reads it")
	}

	// The image's own command serves on 0.0.0.0:3099 with its store in
	// /data (deploy/image/ociimage and the Dockerfile agree on it): the host
	// adds only that the provider is AWS.
	if image := slices.Index(run, `"$IMAGE"`); image < 0 || image != len(run)-1 {
		t.Errorf("docker run %q: want \"$IMAGE\" last, so that the image's own command runs", run)
	}
	if v := flagValues(run, "-e", "--env"); !slices.Contains(v, "INSTANTSTART_PROVIDER=aws") {
		t.Errorf("the container's environment is %q; want INSTANTSTART_PROVIDER=aws", v)
	}
	if ociimage.Port != 3099 || ociimage.DataDir != "/data" {
		t.Errorf("the image serves on port %d with its store in %s; the host publishes 3099 and mounts /data", ociimage.Port, ociimage.DataDir)
	}

	token := dataDir + "/" + auth.AdminTokenFile
	if out := outputSub(t, "AdminTokenCommand"); !strings.Contains(out, "cat "+token) {
		t.Errorf("AdminTokenCommand %q does not read %s, where the server writes the admin token", out, token)
	}
}

func TestOutputs(t *testing.T) {
	want := `aws ssm start-session --target ${Instance} --document-name AWS-StartPortForwardingSession --parameters '{"portNumber":["3099"],"localPortNumber":["3099"]}' --region ${AWS::Region}`
	if got := outputSub(t, "PortForwardCommand"); got != want {
		t.Errorf("PortForwardCommand =\n%s\nwant\n%s", got, want)
	}
	tpl := loadTemplate(t)
	for output, res := range map[string]string{"InstanceId": "Instance", "SharedBucketName": "SharedBucket", "DataVolumeId": "DataVolume"} {
		if !isRef(get(get(get(tpl, "Outputs"), output), "Value"), res) {
			t.Errorf("output %s is not !Ref %s", output, res)
		}
	}
	if got := outputSub(t, "AdminTokenCommand"); !strings.HasPrefix(got, "aws ssm start-session --target ${Instance} ") || !strings.HasSuffix(got, " --region ${AWS::Region}") {
		t.Errorf("AdminTokenCommand %q is not an SSM session to the Instance in the stack's region", got)
	}
}

// TestCfnLint runs cfn-lint, the CloudFormation linter, on the template
// when it is installed.
func TestCfnLint(t *testing.T) {
	bin, err := exec.LookPath("cfn-lint")
	if err != nil {
		t.Skip("cfn-lint is not on PATH, so the template is not linted here: install it (pip install cfn-lint) to lint it")
	}
	out, err := exec.Command(bin, "--", templateFile).CombinedOutput()
	if err != nil {
		t.Errorf("cfn-lint %s: %v\n%s", templateFile, err, out)
	}
}

// ---- reading the template ----------------------------------------------

func templateText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(templateFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// loadTemplate returns the template's top-level mapping, with the short
// forms of intrinsic functions (!Ref, !Sub...) kept as node tags.
func loadTemplate(t *testing.T) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(templateText(t)), &doc); err != nil {
		t.Fatalf("%s: %v", templateFile, err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		t.Fatalf("%s is not one YAML mapping", templateFile)
	}
	return doc.Content[0]
}

// get returns the value of key in mapping n, nil when there is none.
func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func keys(n *yaml.Node) []string {
	var out []string
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			out = append(out, n.Content[i].Value)
		}
	}
	return out
}

func contentOf(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// str is a scalar's value, "" for anything else.
func str(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// scalars is a scalar, or a sequence of scalars, as a list.
func scalars(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for _, c := range contentOf(n) {
		out = append(out, str(c))
	}
	return out
}

func resource(t *testing.T, tpl *yaml.Node, name string) *yaml.Node {
	t.Helper()
	r := get(get(tpl, "Resources"), name)
	if r == nil {
		t.Fatalf("%s has no resource %s", templateFile, name)
	}
	return r
}

// intrinsic reads n as an intrinsic function call, short (!Sub x) or long
// (Fn::Sub: x), returning its full name (Ref, Fn::Sub, Condition...) and
// its argument.
func intrinsic(n *yaml.Node) (name string, arg *yaml.Node, ok bool) {
	if n == nil {
		return "", nil, false
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		name = strings.TrimPrefix(n.Tag, "!")
		if name != "Ref" && name != "Condition" {
			name = "Fn::" + name
		}
		plain := *n
		plain.Tag = ""
		return name, &plain, true
	}
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 {
		if k := n.Content[0].Value; k == "Ref" || k == "Condition" || strings.HasPrefix(k, "Fn::") {
			return k, n.Content[1], true
		}
	}
	return "", nil, false
}

func isRef(n *yaml.Node, target string) bool {
	name, arg, ok := intrinsic(n)
	return ok && name == "Ref" && str(arg) == target
}

// getAtt is a GetAtt argument as Resource.Attribute.
func getAtt(arg *yaml.Node) string {
	if arg.Kind == yaml.SequenceNode {
		return strings.Join(scalars(arg), ".")
	}
	return str(arg)
}

var subVar = regexp.MustCompile(`\$\{([^}]*)\}`)

// subRefs are the names a Sub string refers to: ${Name} or ${Name.Attr},
// not the ${!Literal} escapes.
func subRefs(s string) []string {
	var out []string
	for _, m := range subVar.FindAllStringSubmatch(s, -1) {
		if strings.HasPrefix(m[1], "!") {
			continue
		}
		name, _, _ := strings.Cut(m[1], ".")
		if strings.HasPrefix(m[1], "AWS::") {
			name = m[1]
		}
		out = append(out, name)
	}
	return out
}

var pseudoParameters = []string{"AWS::AccountId", "AWS::NotificationARNs", "AWS::NoValue", "AWS::Partition", "AWS::Region", "AWS::StackId", "AWS::StackName", "AWS::URLSuffix"}

// referenceProblems lists every Ref, GetAtt, Sub variable, condition and
// mapping the template names that it does not define.
func referenceProblems(tpl *yaml.Node) []string {
	params, resources := keys(get(tpl, "Parameters")), keys(get(tpl, "Resources"))
	conditions, mappings := keys(get(tpl, "Conditions")), keys(get(tpl, "Mappings"))
	var problems []string
	var walk func(where string, n *yaml.Node)
	walk = func(where string, n *yaml.Node) {
		if n == nil {
			return
		}
		if name, arg, ok := intrinsic(n); ok {
			switch name {
			case "Ref":
				if r := str(arg); !slices.Contains(params, r) && !slices.Contains(resources, r) && !slices.Contains(pseudoParameters, r) {
					problems = append(problems, fmt.Sprintf("%s: !Ref %q names nothing", where, r))
				}
			case "Fn::GetAtt":
				if r, _, _ := strings.Cut(getAtt(arg), "."); !slices.Contains(resources, r) {
					problems = append(problems, fmt.Sprintf("%s: !GetAtt of %q, which is no resource", where, r))
				}
			case "Fn::Sub":
				s, vars := arg, []string(nil)
				if arg.Kind == yaml.SequenceNode && len(arg.Content) == 2 {
					s, vars = arg.Content[0], keys(arg.Content[1])
					walk(where, arg.Content[1])
				}
				for _, r := range subRefs(str(s)) {
					if !slices.Contains(params, r) && !slices.Contains(resources, r) && !slices.Contains(pseudoParameters, r) && !slices.Contains(vars, r) {
						problems = append(problems, fmt.Sprintf("%s: !Sub names %q, which is defined nowhere", where, r))
					}
				}
				return
			case "Fn::If", "Condition":
				c := str(arg)
				if name == "Fn::If" && len(arg.Content) > 0 {
					c = str(arg.Content[0])
				}
				if !slices.Contains(conditions, c) {
					problems = append(problems, fmt.Sprintf("%s: condition %q is not defined", where, c))
				}
			case "Fn::FindInMap":
				if m := str(firstNode(contentOf(arg))); !slices.Contains(mappings, m) {
					problems = append(problems, fmt.Sprintf("%s: mapping %q is not defined", where, m))
				}
			case "Fn::ValueOf":
				if p := str(firstNode(contentOf(arg))); !slices.Contains(params, p) {
					problems = append(problems, fmt.Sprintf("%s: Fn::ValueOf of %q, which is no parameter", where, p))
				}
			}
			if arg.Kind != yaml.ScalarNode {
				for _, c := range arg.Content {
					walk(where, c)
				}
			}
			return
		}
		for i, c := range n.Content {
			if n.Kind == yaml.MappingNode && i%2 == 0 {
				continue
			}
			walk(where, c)
		}
	}
	for _, section := range []string{"Rules", "Conditions", "Resources", "Outputs"} {
		s := get(tpl, section)
		for _, name := range keys(s) {
			item := get(s, name)
			where := section + "." + name
			if c := get(item, "Condition"); section == "Resources" && c != nil && !slices.Contains(conditions, str(c)) {
				problems = append(problems, fmt.Sprintf("%s: condition %q is not defined", where, str(c)))
			}
			for _, d := range scalars(get(item, "DependsOn")) {
				if !slices.Contains(resources, d) {
					problems = append(problems, fmt.Sprintf("%s: DependsOn %q, which is no resource", where, d))
				}
			}
			walk(where, item)
		}
	}
	return problems
}

// resourceStrings are the resources of a statement's Resource, a scalar or
// a sequence, as written: a !Sub by its string (the first element of its
// [string, variables] form), another function by its name and argument
// (Fn::GetAtt InstanceRole.Arn), a plain scalar by its value.
func resourceStrings(n *yaml.Node) []string {
	nodes := []*yaml.Node{n}
	if _, _, isFn := intrinsic(n); !isFn && n != nil && n.Kind == yaml.SequenceNode {
		nodes = n.Content
	}
	var out []string
	for _, r := range nodes {
		name, arg, ok := intrinsic(r)
		switch {
		case !ok:
			out = append(out, str(r))
		case name == "Fn::Sub" && arg.Kind == yaml.SequenceNode:
			out = append(out, str(firstNode(arg.Content)))
		case name == "Fn::Sub":
			out = append(out, str(arg))
		default:
			out = append(out, fmt.Sprint(name, " ", render(arg)))
		}
	}
	return out
}

// statements are the statements of an IAM policy resource.
func statements(t *testing.T, policy *yaml.Node) []*yaml.Node {
	t.Helper()
	st := contentOf(get(get(get(policy, "Properties"), "PolicyDocument"), "Statement"))
	if len(st) == 0 {
		t.Fatal("the policy has no statements")
	}
	return st
}

// policyActions are the actions a policy resource allows.
func policyActions(t *testing.T, policy *yaml.Node) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, st := range statements(t, policy) {
		if str(get(st, "Effect")) != "Allow" {
			continue
		}
		for _, a := range scalars(get(st, "Action")) {
			out[a] = true
		}
	}
	return out
}

// render turns a template node into plain values, every reference and
// function given a value longer than any AWS name it stands for, to
// measure the policy IAM will store.
func render(n *yaml.Node) any {
	const longName = "an-account-region-partition-or-resource-id-longer-than-any-aws-name-x"
	if name, arg, ok := intrinsic(n); ok {
		if name == "Fn::Sub" {
			s := arg
			if arg.Kind == yaml.SequenceNode {
				s = arg.Content[0]
			}
			return subVar.ReplaceAllString(str(s), longName)
		}
		return "arn:" + longName + ":" + longName
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = render(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		var l []any
		for _, c := range n.Content {
			l = append(l, render(c))
		}
		return l
	}
	return n.Value
}

// userData is the host's boot script, as written in the template.
func userData(t *testing.T) string {
	t.Helper()
	data := get(get(resource(t, loadTemplate(t), "HostLaunchTemplate"), "Properties"), "LaunchTemplateData")
	name, arg, _ := intrinsic(get(data, "UserData"))
	if name != "Fn::Base64" {
		t.Fatalf("UserData is not Fn::Base64 but %q", name)
	}
	name, arg, _ = intrinsic(arg)
	if name != "Fn::Sub" || str(arg) == "" {
		t.Fatalf("UserData is not Fn::Base64 of a !Sub string")
	}
	return str(arg)
}

// dockerRun is the script's docker run command, split into words, its
// continuation lines joined.
func dockerRun(t *testing.T, script string) []string {
	t.Helper()
	joined := strings.ReplaceAll(script, "\\\n", " ")
	var runs [][]string
	for line := range strings.Lines(joined) {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "docker" && f[1] == "run" {
			runs = append(runs, f[2:])
		}
	}
	if len(runs) != 1 {
		t.Fatalf("the boot script has %d docker run commands, want 1", len(runs))
	}
	return runs[0]
}

// flagValues are the values of the flags called one of names in args, in
// either form (-p v, --publish=v).
func flagValues(args []string, names ...string) []string {
	var out []string
	for i, a := range args {
		for _, n := range names {
			switch {
			case a == n && i+1 < len(args):
				out = append(out, args[i+1])
			case strings.HasPrefix(a, n+"="):
				out = append(out, strings.TrimPrefix(a, n+"="))
			}
		}
	}
	return out
}

// shellVar is the value the script assigns to name (NAME=value).
func shellVar(t *testing.T, script, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*` + name + `=(\S+)$`).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("the boot script does not set %s", name)
	}
	return strings.Trim(m[1], `'"`)
}

// outputSub is the !Sub string of an output's value.
func outputSub(t *testing.T, output string) string {
	t.Helper()
	name, arg, _ := intrinsic(get(get(get(loadTemplate(t), "Outputs"), output), "Value"))
	if name != "Fn::Sub" || arg.Kind != yaml.ScalarNode {
		t.Fatalf("output %s is not a !Sub string", output)
	}
	return arg.Value
}

// TestHostMountsTheSharedBucket: the boot script installs Mountpoint for
// Amazon S3 from its release bucket and mounts the stack's shared bucket
// at /s3 as a systemd service, with the rights Mountpoint needs granted to
// the instance role on that bucket.
func TestHostMountsTheSharedBucket(t *testing.T) {
	script := userData(t)
	if got := shellVar(t, script, "BUCKET"); got != "${SharedBucket}" {
		t.Errorf("BUCKET is %q, want the stack's shared bucket", got)
	}
	for _, want := range []string{
		"https://s3.amazonaws.com/mountpoint-s3-release/latest/$mp_arch/mount-s3.rpm",
		"dnf install -y /tmp/mount-s3.rpm",
		"ExecStart=/usr/bin/mount-s3 --region $REGION --allow-other --allow-delete --allow-overwrite $BUCKET /s3",
		"ExecStop=/usr/bin/fusermount -u /s3",
		"Type=forking",
		"systemctl enable --now instantstart-s3.service",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the boot script lacks %q", want)
		}
	}
	// The mount comes before the container, so that a failed image pull
	// leaves the data reachable.
	if strings.Index(script, "instantstart-s3.service") > strings.Index(script, "docker pull") {
		t.Error("the bucket is mounted after the image is pulled")
	}
	// What Mountpoint calls, on the bucket and on its objects.
	tpl := loadTemplate(t)
	need := map[string]string{"s3:ListBucket": "SharedBucket.Arn", "s3:GetObject": "${SharedBucket.Arn}/*", "s3:PutObject": "${SharedBucket.Arn}/*",
		"s3:DeleteObject": "${SharedBucket.Arn}/*", "s3:AbortMultipartUpload": "${SharedBucket.Arn}/*"}
	granted := map[string]bool{}
	for _, st := range statements(t, resource(t, tpl, "EnginePolicy")) {
		if str(get(st, "Effect")) != "Allow" {
			continue
		}
		res := resourceStrings(get(st, "Resource"))
		for _, a := range scalars(get(st, "Action")) {
			if target, ok := need[a]; ok && slices.ContainsFunc(res, func(r string) bool { return strings.Contains(r, target) }) {
				granted[a] = true
			}
		}
	}
	for a := range need {
		if !granted[a] {
			t.Errorf("the instance role is not allowed %s on the shared bucket, which Mountpoint needs", a)
		}
	}
}
