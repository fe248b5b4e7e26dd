// How features and their resources read on the page. What a toggle makes or
// removes follows the schema's descriptions (schema/feature.graphqls).
import type { FeatureName } from "../gql/graphql";

/** What turning each feature on and off does. */
export const featureEffects: Record<FeatureName, { enable: string; disable: string; change?: string }> = {
  NODE_AUTO_RECOVERY: {
    enable: "Sets the HyperPod cluster's NodeRecovery to Automatic: HyperPod then reboots or replaces a node whose health checks fail, with no one asking.",
    disable:
      "Sets the HyperPod cluster's NodeRecovery to None: a node whose health checks fail stays as it is until someone reboots or replaces it (on the Nodes tab).",
  },
  KARPENTER_AUTOSCALING: {
    enable:
      "Makes an IAM cluster role allowed to add and remove the cluster's nodes, sets the cluster's AutoScaling to Karpenter, and makes a HyperpodNodeClass naming the chosen instance groups and a NodePool. The groups then grow (from zero) when pods are pending and shrink when idle. It needs node auto-recovery, which it turns on first.",
    disable:
      "Removes the NodePool and the HyperpodNodeClass, turns off the cluster's AutoScaling, and removes the autoscaler's IAM role and policy. Node auto-recovery stays on.",
  },
  TRAINING_OPERATOR: {
    enable:
      "Installs the HyperPod training operator add-on with its IAM role and pod identity association. It needs the eks-pod-identity-agent and cert-manager add-ons, which are installed first when missing.",
    disable:
      "Removes the training operator add-on, its pod identity association and its IAM role. The eks-pod-identity-agent and cert-manager add-ons are left in place: other features use them too.",
  },
  TIERED_CHECKPOINTING: {
    enable:
      "Makes an IAM policy scoped to the bucket, an IAM role trusted through the cluster's OIDC provider by exactly one service account, that service account annotated with the role, and turns on the cluster's TieredStorageConfig. Not available on training-plan capacity.",
    disable:
      "Turns off the cluster's TieredStorageConfig and removes the service account, the IAM role and the IAM policy. The bucket and the checkpoints in it stay.",
  },
  DEEP_HEALTH_CHECKS: {
    enable:
      "Sets every GPU and Trainium instance group to run the InstanceStress and InstanceConnectivity deep health checks on each new node before it takes work. New nodes then take longer to join; nodes already running are not checked again.",
    disable: "Clears the deep health checks of the instance groups they were set on: new nodes join without them.",
  },
  INFERENCE_OPERATOR: {
    enable:
      "Installs cert-manager when missing, then makes an IAM policy and an execution role trusted through the cluster's OIDC provider by the operator's service account, and installs the HyperPod inference operator add-on with that role and the TLS certificate bucket.",
    disable: "Removes the inference operator add-on, its execution role and its IAM policy. cert-manager is left in place: other features use it too.",
  },
  OBSERVABILITY: {
    enable:
      "Installs the eks-pod-identity-agent add-on when missing, makes an IAM role allowed to write to Amazon Managed Service for Prometheus with a pod identity association for the metrics collector, and installs the HyperPod observability add-on writing to the workspace.",
    disable: "Removes the observability add-on, the collector's pod identity association and its IAM role. The workspace and the metrics in it stay.",
    change: "Points the observability add-on at another workspace, in place.",
  },
  KUBERAY: {
    enable: "Installs the KubeRay operator's Helm chart, for RayCluster, RayJob and RayService.",
    disable: "Uninstalls the KubeRay operator's Helm release. Ray clusters and jobs still running lose their operator.",
  },
  KEDA: {
    enable:
      "Installs the eks-pod-identity-agent add-on when missing, makes an IAM role (given to KEDA's operator by pod identity) that may query Amazon Managed Service for Prometheus, and installs KEDA's Helm chart, for ScaledObject autoscaling of inference endpoints on the metrics observability writes.",
    disable: "Uninstalls KEDA's Helm release and removes its pod identity association and IAM role: ScaledObjects stop scaling their targets.",
  },
  S3_CSI_DRIVER: {
    enable:
      "Makes an IAM policy allowing only the named buckets and a role trusted through the cluster's OIDC provider by the driver's service account, then installs the Mountpoint for S3 CSI driver add-on with that role.",
    disable: "Removes the S3 CSI driver add-on, its IAM role and its IAM policy. Pods mounting buckets lose their volumes; the buckets stay.",
    change: "Replaces the list of buckets the driver may mount: a new version of its IAM policy, with the driver left running.",
  },
  FSX_CSI_DRIVER: {
    enable: "Installs the FSx for Lustre CSI driver add-on. Static volumes need no IAM role: the nodes mount the file systems over the network.",
    disable: "Removes the FSx for Lustre CSI driver add-on. Pods mounting file systems lose their volumes; the file systems stay.",
  },
  LOAD_BALANCER_CONTROLLER: {
    enable:
      "Installs the eks-pod-identity-agent add-on when missing, makes an IAM policy and role (given to the controller by pod identity) that may manage load balancers and their security groups, changing or deleting only those it tagged as its own, and installs the AWS Load Balancer Controller's Helm chart in kube-system. It then makes an internet-facing Network Load Balancer for each LoadBalancer Service. Deploying a LOAD_BALANCER endpoint turns it on by itself.",
    disable:
      "Uninstalls the controller's Helm release and removes its pod identity association, IAM role and policy. Load balancers it made are no longer kept in step with their Services; the eks-pod-identity-agent add-on is left in place.",
  },
  MLFLOW: {
    enable:
      "Makes a SageMaker managed MLflow tracking server with its artifacts in the shared bucket (and an IAM role, trusted by SageMaker, that may use only that prefix), or uses an existing server; then the service account instantstart-mlflow, whose pod identity role may call only that server. Jobs submitted from then on report their loss, learning rate and throughput to it. The eks-pod-identity-agent add-on is installed first when missing. Creating a server takes about 25 minutes on AWS.",
    disable:
      "Removes the service account, its pod identity association, role and policy, and deletes the tracking server MLFLOW made with its role. An existing server it only used is left as it is. The artifacts in the bucket stay.",
  },
};

/** Resource kinds as people say them. */
export const resourceKindWords: Record<string, string> = {
  IAM_POLICY: "IAM policy",
  IAM_ROLE: "IAM role",
  POD_IDENTITY_ASSOCIATION: "Pod identity association",
  EKS_ADDON: "EKS add-on",
  HELM_RELEASE: "Helm release",
  KUBERNETES_OBJECT: "Kubernetes object",
  CLUSTER_SETTING: "Cluster setting",
  MLFLOW_TRACKING_SERVER: "MLflow tracking server",
};

/** Why a resource is marked shared. */
export const sharedWords = "A prerequisite other features use too: turning this feature off leaves it.";

/** A title inside a sentence: "Training operator" reads "training operator"; names ("KubeRay operator", "KEDA") keep their case. */
export function inSentence(title: string): string {
  return /^[A-Z][a-z]*(\s|$)/.test(title) ? title[0]!.toLowerCase() + title.slice(1) : title;
}
