package features

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

// definition is a feature: its chain of links, prerequisites first.
type definition struct {
	name               hyperpod.Feature
	title, description string
	field              string // the input field that toggles it
	dependsOn          []string
	links              func(e *env) []link
	// defaults fills the settings of an enable request; check refuses one
	// that cannot work, before anything is made.
	defaults func(s *Settings)
	// resolve fills the settings a request leaves to the cluster (the
	// groups deep health checks cover), reading it.
	resolve func(ctx context.Context, e *env) error
	check   func(ctx context.Context, e *env) error
	// settings reports the feature's settings for the table.
	settings func(ctx context.Context, e *env) (*Settings, error)
	// requires names features it needs on: they cannot be turned off while
	// it is on.
	requires []hyperpod.Feature
	// empty says why the feature has nothing to make in a cluster, for
	// features whose links depend on the cluster (deep health checks
	// without accelerated groups).
	empty string
}

// catalog lists the features in the order the table shows them.
var catalog = []*definition{
	{
		name: hyperpod.NodeAutoRecovery, title: "Node auto-recovery", field: "input.nodeAutoRecovery",
		description: "HyperPod reboots or replaces a node whose health checks fail, with no one asking.",
		links:       func(e *env) []link { return []link{nodeRecoveryLink(e)} },
	},
	{
		name: hyperpod.DeepHealthChecks, title: "Deep health checks", field: "input.deepHealthChecks",
		description: "New nodes of the GPU and Trainium instance groups run HyperPod's deep health checks (accelerator stress, network connectivity) before they take work.",
		dependsOn:   []string{"instance groups of GPU or Trainium instances"},
		empty:       "the cluster has no instance group of GPU or Trainium instances",
		resolve:     resolveCheckedGroups,
		check:       checkDeepHealthChecks,
		links: func(e *env) []link {
			var out []link
			for _, g := range e.settings.InstanceGroups {
				out = append(out, groupChecksLink(e, g, e.settings.Checks))
			}
			return out
		},
		settings: func(_ context.Context, e *env) (*Settings, error) {
			s := e.settings
			return &s, nil
		},
	},
	{
		name: hyperpod.KarpenterAutoscaling, title: "Managed Karpenter autoscaling", field: "input.karpenter",
		description: "HyperPod's managed Karpenter grows the chosen instance groups (from zero) when pods are pending and shrinks them when idle. It scales HyperPod instance groups only.",
		dependsOn:   []string{"NODE_AUTO_RECOVERY", "continuous node provisioning"},
		requires:    []hyperpod.Feature{hyperpod.NodeAutoRecovery},
		check:       checkKarpenter,
		links: func(e *env) []link {
			name := iamName(e.c, "autoscaling")
			role := roleArn(e, name)
			groups := make([]any, 0, len(e.settings.InstanceGroups))
			for _, g := range e.settings.InstanceGroups {
				groups = append(groups, g)
			}
			recovery := nodeRecoveryLink(e)
			recovery.shared = true
			return []link{
				recovery,
				policyLink(e, "policy", "IAM policy to add and remove the cluster's nodes", name, autoscalingPolicy(e)),
				roleLink(e, "role", "IAM cluster role of the autoscaler", name, serviceTrust("hyperpod.sagemaker.amazonaws.com"),
					[]string{fmt.Sprintf("arn:aws:iam::%s:policy%s%s", e.c.AccountID(), iamPath, name)}),
				clusterSettingLink(e, "autoscaling", "AutoScaling Karpenter",
					func(out *sagemaker.DescribeClusterOutput) (bool, bool) {
						as := out.AutoScaling
						on := as != nil && as.Mode == smtypes.ClusterAutoScalingModeEnable
						return on, on && aws.ToString(out.ClusterRole) == role
					},
					func(in *sagemaker.UpdateClusterInput, enable bool) {
						in.AutoScaling = &smtypes.ClusterAutoScalingConfig{Mode: smtypes.ClusterAutoScalingModeDisable}
						if enable {
							in.AutoScaling = &smtypes.ClusterAutoScalingConfig{Mode: smtypes.ClusterAutoScalingModeEnable, AutoScalerType: smtypes.ClusterAutoScalerTypeKarpenter}
							in.ClusterRole = aws.String(role)
						}
					}),
				objectLink(e, "node-class", "HyperpodNodeClass "+karpenterObject, hyperPodNodeClasses, "HyperpodNodeClass", karpenterObject,
					map[string]any{"instanceGroups": groups}),
				objectLink(e, "node-pool", "NodePool "+karpenterObject, nodePools, "NodePool", karpenterObject, map[string]any{
					"template": map[string]any{"spec": map[string]any{
						"nodeClassRef": map[string]any{"group": hyperPodNodeClasses.Group, "kind": "HyperpodNodeClass", "name": karpenterObject},
						"requirements": []any{},
					}},
					"disruption": map[string]any{"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30s"},
				}),
			}
		},
		settings: func(_ context.Context, e *env) (*Settings, error) {
			s := e.settings
			return &s, nil
		},
	},
	{
		name: hyperpod.TrainingOperator, title: "Training operator", field: "input.trainingOperator",
		description: "The HyperPod training operator add-on: runs HyperPodPyTorchJob with process-level recovery and hang detection.",
		dependsOn:   []string{"EKS add-on eks-pod-identity-agent", "EKS add-on cert-manager"},
		links: func(e *env) []link {
			role := iamName(e.c, "training-operator")
			return []link{
				addonLink(e, "eks-pod-identity-agent", true),
				addonLink(e, "cert-manager", true),
				roleLink(e, "role", "IAM role of the training operator", role, podsTrust(), []string{trainingOperatorPolicy}),
				podIdentityLink(e, trainingOperatorNamespace, trainingOperatorServiceAccount, role),
				addonLink(e, trainingOperatorAddon, false),
			}
		},
	},
	{
		name: hyperpod.InferenceOperator, title: "Inference operator", field: "input.inferenceOperator",
		description: "The HyperPod inference operator add-on: deploys models from S3, FSx or JumpStart as InferenceEndpointConfig and JumpStartModel objects, with TLS certificates kept in an S3 bucket.",
		dependsOn:   []string{"EKS add-on cert-manager", "the cluster's IAM OIDC provider"},
		check:       checkInferenceOperator,
		links: func(e *env) []link {
			name := iamName(e.c, "inference-operator")
			return []link{
				addonLink(e, "cert-manager", true),
				policyLink(e, "policy", "IAM policy of the inference operator", name, inferencePolicy(e)),
				roleLink(e, "role", "IAM execution role of the inference operator", name, oidcTrust(e, inferenceNamespace, inferenceServiceAccount),
					[]string{fmt.Sprintf("arn:aws:iam::%s:policy%s%s", e.c.AccountID(), iamPath, name)}),
				addonWith(e, inferenceAddon, addonConfig{values: map[string]any{
					"executionRoleArn": roleArn(e, name), "tlsCertificateS3Bucket": e.settings.Bucket,
				}}),
			}
		},
		settings: func(_ context.Context, e *env) (*Settings, error) {
			return &Settings{Bucket: e.settings.Bucket}, nil
		},
	},
	{
		name: hyperpod.TieredCheckpointing, title: "Managed tiered checkpointing", field: "input.tieredCheckpointing",
		description: "Checkpoints kept in node memory and copied to S3, through an identity scoped to one bucket and one service account.",
		dependsOn:   []string{"the cluster's IAM OIDC provider"},
		defaults: func(s *Settings) {
			s.Namespace = cmpOr(s.Namespace, "default")
			s.ServiceAccount = cmpOr(s.ServiceAccount, "tiered-checkpointing")
		},
		check: checkTieredCheckpointing,
		links: func(e *env) []link {
			s, name := e.settings, iamName(e.c, "checkpointing")
			return []link{
				policyLink(e, "policy", "IAM policy for bucket "+s.Bucket, name, bucketPolicy(s.Bucket)),
				roleLink(e, "role", "IAM role for service account "+s.Namespace+"/"+s.ServiceAccount, name, oidcTrust(e, s.Namespace, s.ServiceAccount),
					[]string{fmt.Sprintf("arn:aws:iam::%s:policy%s%s", e.c.AccountID(), iamPath, name)}),
				serviceAccountLink(e, s.Namespace, s.ServiceAccount, map[string]string{roleAnnotation: roleArn(e, name)}),
				clusterSettingLink(e, "tiered-storage", "TieredStorageConfig Enable",
					func(out *sagemaker.DescribeClusterOutput) (bool, bool) {
						ts := out.TieredStorageConfig
						if ts == nil || ts.Mode != smtypes.ClusterConfigModeEnable {
							return false, false
						}
						return true, s.MemoryPercentage == 0 || int(aws.ToInt32(ts.InstanceMemoryAllocationPercentage)) == s.MemoryPercentage
					},
					func(in *sagemaker.UpdateClusterInput, enable bool) {
						in.TieredStorageConfig = &smtypes.ClusterTieredStorageConfig{Mode: smtypes.ClusterConfigModeDisable}
						if enable {
							in.TieredStorageConfig.Mode = smtypes.ClusterConfigModeEnable
							if s.MemoryPercentage > 0 {
								in.TieredStorageConfig.InstanceMemoryAllocationPercentage = aws.Int32(int32(s.MemoryPercentage))
							}
						}
					}),
			}
		},
		settings: func(ctx context.Context, e *env) (*Settings, error) {
			s := e.settings
			out, err := e.describe(ctx)
			if err != nil {
				return nil, err
			}
			if ts := out.TieredStorageConfig; ts != nil && aws.ToInt32(ts.InstanceMemoryAllocationPercentage) > 0 {
				s.MemoryPercentage = int(aws.ToInt32(ts.InstanceMemoryAllocationPercentage))
			}
			return &s, nil
		},
	},
	{
		name: hyperpod.Observability, title: "Observability", field: "input.observability",
		description: "The HyperPod observability add-on: GPU, EFA, node, Kubernetes and training-job metrics collected in the cluster and written to an Amazon Managed Service for Prometheus workspace, for Grafana dashboards.",
		dependsOn:   []string{"EKS add-on eks-pod-identity-agent", "an Amazon Managed Service for Prometheus workspace"},
		check:       checkObservability,
		links: func(e *env) []link {
			role := iamName(e.c, "observability")
			return []link{
				addonLink(e, "eks-pod-identity-agent", true),
				roleLink(e, "role", "IAM role of the metrics collector", role, podsTrust(), []string{prometheusWritePolicy}),
				podIdentityLink(e, observabilityNamespace, observabilityServiceAccount, role),
				addonWith(e, observabilityAddon, addonConfig{values: observabilityValues(e.settings.WorkspaceArn)}),
			}
		},
		settings: func(_ context.Context, e *env) (*Settings, error) {
			return &Settings{WorkspaceArn: e.settings.WorkspaceArn}, nil
		},
	},
	{
		name: hyperpod.KubeRay, title: "KubeRay operator", field: "input.kubeRay",
		description: "The KubeRay operator (Helm chart " + kubeRayChart.Chart + " " + kubeRayChart.Version + " in namespace " + kubeRayChart.Namespace + "): runs RayCluster, RayJob and RayService, for Ray-based training such as VERL.",
		links:       func(e *env) []link { return []link{helmLink(e, kubeRayChart)} },
	},
	loadBalancerControllerFeature,
	{
		name: hyperpod.KEDA, title: "KEDA", field: "input.keda",
		description: "Kubernetes event-driven autoscaling (Helm chart " + kedaChart.Chart + " " + kedaChart.Version + " in namespace " + kedaChart.Namespace + "): scales inference deployments on Prometheus or CloudWatch metrics with ScaledObject. Its operator runs as a service account whose pod identity role may query Amazon Managed Service for Prometheus, where the OBSERVABILITY feature writes the metrics endpoints scale on.",
		dependsOn:   []string{"EKS add-on eks-pod-identity-agent"},
		links: func(e *env) []link {
			role := iamName(e.c, "keda")
			return []link{
				addonLink(e, "eks-pod-identity-agent", true),
				roleLink(e, "role", "IAM role of the KEDA operator (queries Prometheus)", role, podsTrust(), []string{prometheusQueryPolicy}),
				podIdentityLink(e, kedaChart.Namespace, kedaOperatorServiceAccount, role),
				helmLink(e, kedaChart),
			}
		},
	},
	{
		name: hyperpod.S3CSIDriver, title: "S3 CSI driver (Mountpoint for Amazon S3)", field: "input.s3CsiDriver",
		description: "The aws-mountpoint-s3-csi-driver add-on, with an IAM role (through the cluster's OIDC provider) allowed to read and write only the buckets named: mounts S3 buckets into pods as volumes, for datasets, models and checkpoints.",
		dependsOn:   []string{"the cluster's IAM OIDC provider"},
		check:       checkS3CSIDriver,
		links: func(e *env) []link {
			name := iamName(e.c, "s3-csi")
			return []link{
				policyLink(e, "policy", "IAM policy for buckets "+strings.Join(e.settings.Buckets, ", "), name, mountPolicy(e.settings.Buckets)),
				roleLink(e, "role", "IAM role of the driver's service account", name, oidcTrust(e, s3CSINamespace, s3CSIServiceAccount),
					[]string{fmt.Sprintf("arn:aws:iam::%s:policy%s%s", e.c.AccountID(), iamPath, name)}),
				addonWith(e, s3CSIAddon, addonConfig{roleName: name}),
			}
		},
		settings: func(_ context.Context, e *env) (*Settings, error) {
			return &Settings{Buckets: slices.Clone(e.settings.Buckets)}, nil
		},
	},
	{
		name: hyperpod.FSxCSIDriver, title: "FSx for Lustre CSI driver", field: "input.fsxCsiDriver",
		description: "The aws-fsx-csi-driver add-on: mounts FSx for Lustre file systems into pods through static PersistentVolumes (addStorage with kind FSX_LUSTRE turns it on). Static volumes need no IAM role: the nodes mount the file system over the network.",
		links:       func(e *env) []link { return []link{addonLink(e, fsxCSIAddon, false)} },
	},
	{
		name: hyperpod.MLflow, title: "MLflow tracking (SageMaker managed MLflow)", field: "input.mlflow",
		description: "A SageMaker managed MLflow tracking server for the cluster's training jobs: made (with an IAM role, trusted by SageMaker, that may read and write only its artifact prefix of the shared bucket) or an existing one; " +
			"jobs report their metrics to it as the service account " + cloud.MLflowServiceAccount + ", whose pod identity role may call only that server. Turning it off removes what it made, never a server it only uses.",
		dependsOn: []string{"EKS add-on eks-pod-identity-agent", "the cluster's shared bucket"},
		check:     checkMLflow,
		links:     mlflowLinks,
		settings:  mlflowSettings,
	},
}

// The training operator's add-on, and the identity its controller uses.
const (
	trainingOperatorAddon          = "amazon-sagemaker-hyperpod-training-operator"
	trainingOperatorNamespace      = "aws-hyperpod"
	trainingOperatorServiceAccount = "hp-training-operator-controller-manager"
	trainingOperatorPolicy         = "arn:aws:iam::aws:policy/AmazonSageMakerHyperPodTrainingOperatorAccess"
	// roleAnnotation tells the EKS pod identity webhook (IRSA) which role a
	// service account's pods assume.
	roleAnnotation = "eks.amazonaws.com/role-arn"
)

// karpenterObject names the HyperpodNodeClass and NodePool InstantStart
// makes.
const karpenterObject = "instantstart"

// nodeRecoveryLink is the cluster's NodeRecovery setting.
func nodeRecoveryLink(e *env) link {
	return clusterSettingLink(e, "node-recovery", "NodeRecovery Automatic",
		func(out *sagemaker.DescribeClusterOutput) (bool, bool) {
			return out.NodeRecovery == smtypes.ClusterNodeRecoveryAutomatic, true
		},
		func(in *sagemaker.UpdateClusterInput, enable bool) {
			in.NodeRecovery = map[bool]smtypes.ClusterNodeRecovery{true: smtypes.ClusterNodeRecoveryAutomatic, false: smtypes.ClusterNodeRecoveryNone}[enable]
		})
}

// serviceTrust lets an AWS service assume a role.
func serviceTrust(service string) policyDocument {
	return policyDocument{Version: "2012-10-17", Statement: []statement{{Effect: "Allow",
		Principal: map[string]string{"Service": service}, Action: []string{"sts:AssumeRole"}}}}
}

// autoscalingPolicy lets the autoscaler add and remove the cluster's nodes,
// and nothing else.
func autoscalingPolicy(e *env) policyDocument {
	arn := fmt.Sprintf("arn:aws:sagemaker:%s:%s:cluster/*", e.c.Region, e.c.AccountID())
	return policyDocument{Version: "2012-10-17", Statement: []statement{{Effect: "Allow",
		Action: []string{"sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"}, Resource: []string{arn}}}}
}

// checkKarpenter refuses autoscaling without groups to scale, with groups
// the cluster does not have, or on a cluster that does not provision
// nodes continuously.
func checkKarpenter(ctx context.Context, e *env) error {
	f := "input.karpenter.instanceGroups"
	if len(e.settings.InstanceGroups) == 0 {
		return errs.Field(f, "name the instance groups Karpenter may scale (HyperPod instance groups of the cluster, usually at count 0)")
	}
	out, err := e.describe(ctx)
	if err != nil {
		return err
	}
	if out.NodeProvisioningMode != smtypes.ClusterNodeProvisioningModeContinuous {
		return errs.New(errs.Precondition, "HyperPod cluster %s does not provision nodes continuously, which managed Karpenter needs; it can be set only when a cluster is created", e.c.HyperPod.Name).WithField(f)
	}
	var names []string
	for _, g := range out.InstanceGroups {
		names = append(names, aws.ToString(g.InstanceGroupName))
	}
	for i, g := range e.settings.InstanceGroups {
		if !slices.Contains(names, g) {
			return errs.New(errs.Precondition, "cluster %s has no instance group %s (it has %s): add the group first, at count 0 if Karpenter should start it",
				e.c.Name, g, strings.Join(names, ", ")).WithField(fmt.Sprintf("%s[%d]", f, i))
		}
		if slices.Index(e.settings.InstanceGroups, g) != i {
			return errs.Field(fmt.Sprintf("%s[%d]", f, i), "instance group %s is named twice", g)
		}
	}
	return nil
}

func find(n hyperpod.Feature) *definition {
	for _, d := range catalog {
		if d.name == n {
			return d
		}
	}
	return nil
}

// observed is the state of a whole feature.
type observed struct {
	status        Status
	message       string
	settingsMatch bool
	resources     []Resource
}

// prepare completes the settings of e with the feature's defaults and what
// it reads from the cluster.
func (d *definition) prepare(ctx context.Context, e *env) error {
	if d.defaults != nil {
		d.defaults(&e.settings)
	}
	if d.resolve != nil {
		return d.resolve(ctx, e)
	}
	return nil
}

// observe reads every link of the feature.
func (d *definition) observe(ctx context.Context, e *env) (observed, error) {
	if err := d.prepare(ctx, e); err != nil {
		return observed{}, err
	}
	var st observed
	st.settingsMatch = true
	own, present := 0, 0
	var missing []string
	broken := "" // why a link is broken (an add-on CREATE_FAILED, a failed Helm release)
	for _, l := range d.links(e) {
		ls, err := l.state(ctx)
		if err != nil {
			return observed{}, err
		}
		if ls.failed != "" && broken == "" {
			broken = ls.failed + "; disable it to remove what is left, then enable it again"
			if l.retryFailed {
				broken = ls.failed + "; enable it again to retry, or disable it"
			}
		}
		if ls.present {
			st.resources = append(st.resources, Resource{Kind: l.kind, Ref: ls.ref, Shared: l.shared, Detail: ls.detail})
			st.settingsMatch = st.settingsMatch && ls.matches
		}
		if l.shared {
			continue
		}
		own++
		if ls.present {
			present++
		} else {
			missing = append(missing, l.title)
		}
	}
	switch {
	case own == 0:
		st.status, st.message = Disabled, d.empty
	case present == own:
		st.status = Enabled
		if !st.settingsMatch {
			st.message = "enabled with other settings than asked"
		}
	case present == 0:
		st.status = Disabled
	default:
		st.status, st.message = Partial, "missing: "+strings.Join(missing, ", ")+"; enable or disable it again to finish"
	}
	if broken != "" {
		st.status, st.message = Failed, broken
	}
	return st, nil
}

// podsTrust lets EKS Pod Identity assume a role.
func podsTrust() policyDocument {
	return policyDocument{Version: "2012-10-17", Statement: []statement{{Effect: "Allow",
		Principal: map[string]string{"Service": "pods.eks.amazonaws.com"}, Action: []string{"sts:AssumeRole", "sts:TagSession"}}}}
}

// oidcTrust lets exactly the service account namespace/sa assume a role
// through the cluster's OIDC provider.
func oidcTrust(e *env, namespace, sa string) policyDocument {
	return policyDocument{Version: "2012-10-17", Statement: []statement{{Effect: "Allow",
		Principal: map[string]string{"Federated": e.c.EKS.OIDCProviderArn}, Action: []string{"sts:AssumeRoleWithWebIdentity"},
		Condition: map[string]map[string]string{"StringEquals": {
			e.c.OIDCIssuerHost() + ":sub": "system:serviceaccount:" + namespace + ":" + sa,
			e.c.OIDCIssuerHost() + ":aud": "sts.amazonaws.com",
		}}}}}
}

// bucketPolicy allows the checkpoint reads and writes on one bucket, and
// the daemon's logs.
func bucketPolicy(bucket string) policyDocument {
	return policyDocument{Version: "2012-10-17", Statement: []statement{
		{Effect: "Allow", Action: []string{"s3:ListBucket", "s3:GetBucketLocation"}, Resource: []string{"arn:aws:s3:::" + bucket}},
		{Effect: "Allow", Action: []string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"}, Resource: []string{"arn:aws:s3:::" + bucket + "/*"}},
		{Effect: "Allow", Action: []string{"logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"}, Resource: []string{"*"}},
	}}
}

var (
	k8sName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
)

// checkTieredCheckpointing refuses what cannot work: no bucket, a bad
// name, no OIDC provider, a training-plan group, or an identity chain that
// exists for another bucket or service account.
func checkTieredCheckpointing(ctx context.Context, e *env) error {
	s, f := e.settings, "input.tieredCheckpointing."
	var bad errs.List
	if err := checkBucketName(f+"bucket", s.Bucket, "the checkpoints go to"); err != nil {
		bad = append(bad, err)
	}
	if s.MemoryPercentage != 0 && (s.MemoryPercentage < 1 || s.MemoryPercentage > 100) {
		bad = append(bad, errs.Field(f+"memoryPercentage", "give a share of instance memory from 1 to 100, not %d", s.MemoryPercentage))
	}
	if !k8sName.MatchString(s.Namespace) {
		bad = append(bad, errs.Field(f+"namespace", "%q is not a Kubernetes namespace name", s.Namespace))
	}
	if !k8sName.MatchString(s.ServiceAccount) {
		bad = append(bad, errs.Field(f+"serviceAccount", "%q is not a Kubernetes service account name", s.ServiceAccount))
	}
	if len(bad) > 0 {
		return bad
	}
	if err := needOIDC(e, "checkpointing", f+"bucket"); err != nil {
		return err
	}
	out, err := e.describe(ctx)
	if err != nil {
		return err
	}
	for _, g := range out.InstanceGroups {
		if aws.ToString(g.TrainingPlanArn) != "" {
			return errs.New(errs.Precondition, "instance group %s runs on training plan %s: managed tiered checkpointing is not available on training-plan capacity; use S3 checkpoints in the training job instead",
				aws.ToString(g.InstanceGroupName), aws.ToString(g.TrainingPlanArn)).WithField(f + "bucket")
		}
	}
	// An existing chain for another bucket or service account is changed
	// by disabling and enabling again, not in place.
	name := iamName(e.c, "checkpointing")
	for _, l := range []link{policyLink(e, "policy", "IAM policy", name, bucketPolicy(s.Bucket)),
		roleLink(e, "role", "IAM role", name, oidcTrust(e, s.Namespace, s.ServiceAccount), nil)} {
		st, err := l.state(ctx)
		if err != nil {
			return err
		}
		if st.present && !st.matches {
			return errs.New(errs.Precondition, "managed tiered checkpointing is set up for another bucket or service account (%s); disable it first, then enable it with the new ones", st.ref).WithField(f + "bucket")
		}
	}
	return nil
}
