package storage

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// The Mountpoint for S3 CSI driver, as a PersistentVolume names it.
const (
	s3CSIDriver = "s3.csi.aws.com"
	// fsxCSIDriver is the FSx for Lustre CSI driver.
	fsxCSIDriver = "fsx.csi.aws.com"
	// volumeCapacity is what Kubernetes requires a volume to state; the
	// driver ignores it (a bucket has no size).
	volumeCapacity = "1200Gi"
	managedBy      = "app.kubernetes.io/managed-by"
	storageLabel   = "instantstart.io/storage"
)

// s3Volume is the static PersistentVolume of a bucket: read and write by
// many pods, files deletable (allow-delete), in the bucket's region.
func s3Volume(st *Storage) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: st.VolumeName, Labels: map[string]string{managedBy: "instantstart", storageLabel: st.ID}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(volumeCapacity)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              "",
			MountOptions:                  []string{"allow-delete", "allow-other", "region " + st.S3.Region},
			ClaimRef:                      &corev1.ObjectReference{Namespace: st.Namespace, Name: st.ClaimName},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: s3CSIDriver, VolumeHandle: st.VolumeName,
				VolumeAttributes: map[string]string{"bucketName": st.S3.Bucket},
			}},
		},
	}
}

// fsxVolume is the static PersistentVolume of file system fs.
func fsxVolume(st *Storage, fs fsOutput) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: st.VolumeName, Labels: map[string]string{managedBy: "instantstart", storageLabel: st.ID}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: capacityOf(st)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              "",
			MountOptions:                  []string{"flock"},
			ClaimRef:                      &corev1.ObjectReference{Namespace: st.Namespace, Name: st.ClaimName},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: fsxCSIDriver, VolumeHandle: fs.FileSystemID,
				VolumeAttributes: map[string]string{"dnsname": fs.DNSName, "mountname": fs.MountName},
			}},
		},
	}
}

// capacityOf is what the volume and its claim state: a file system's
// size; for a bucket, which has none, a figure Kubernetes requires and
// the driver ignores.
func capacityOf(st *Storage) resource.Quantity {
	if st.FSx != nil {
		return *resource.NewQuantity(int64(st.FSx.CapacityGiB)<<30, resource.BinarySI)
	}
	return resource.MustParse(volumeCapacity)
}

// claimOf is the claim pods mount, bound to the volume by name.
func claimOf(st *Storage) *corev1.PersistentVolumeClaim {
	empty := ""
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: st.ClaimName, Namespace: st.Namespace, Labels: map[string]string{managedBy: "instantstart", storageLabel: st.ID}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			StorageClassName: &empty,
			VolumeName:       st.VolumeName,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: capacityOf(st)}},
		},
	}
}

// volumeOutput is what the volume phase made.
type volumeOutput struct {
	Volume    string `json:"volume"`
	Namespace string `json:"namespace"`
	Claim     string `json:"claim"`
}

// volumeStep makes the volume and its claim and waits for them to bind.
// volume builds the volume from what the earlier phases made.
func volumeStep(p *cloud.Provider, c *hyperpod.Cluster, st *Storage, volume func(run *ops.Run) (*corev1.PersistentVolume, error)) ops.Step {
	return ops.Step{Name: phaseVolume, Title: volumeTitle(st),
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			kc, err := p.KubeOf(ctx, c.EKS.Name)
			if err != nil {
				return ops.Observation{}, err
			}
			pv, err := kc.Core.CoreV1().PersistentVolumes().Get(ctx, st.VolumeName, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return ops.Observation{State: ops.Absent}, nil
			}
			if err != nil {
				return ops.Observation{}, errs.Wrap(errs.Upstream, err, "read volume %s: %v", st.VolumeName, err)
			}
			if owner := pv.Labels[storageLabel]; owner != st.ID {
				return ops.Observation{State: ops.Broken, Err: errs.New(errs.Conflict, "a PersistentVolume %s exists that this storage did not make (label %s=%q); delete it or rename it", st.VolumeName, storageLabel, owner)}, nil
			}
			pvc, err := kc.Core.CoreV1().PersistentVolumeClaims(st.Namespace).Get(ctx, st.ClaimName, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return ops.Observation{State: ops.Absent}, nil
			}
			if err != nil {
				return ops.Observation{}, errs.Wrap(errs.Upstream, err, "read claim %s/%s: %v", st.Namespace, st.ClaimName, err)
			}
			if pvc.Spec.VolumeName != st.VolumeName {
				return ops.Observation{State: ops.Broken, Err: errs.New(errs.Conflict, "claim %s/%s exists and names volume %q, not %s; delete it, then retry", st.Namespace, st.ClaimName, pvc.Spec.VolumeName, st.VolumeName)}, nil
			}
			if pvc.Status.Phase != corev1.ClaimBound {
				return ops.Observation{State: ops.Pending, Message: "claim " + st.ClaimName + " is " + string(pvc.Status.Phase)}, nil
			}
			return ops.Observation{State: ops.Done, Output: volumeOutput{Volume: st.VolumeName, Namespace: st.Namespace, Claim: st.ClaimName}}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			kc, err := p.KubeOf(ctx, c.EKS.Name)
			if err != nil {
				return nil, err
			}
			pv, err := volume(run)
			if err != nil {
				return nil, err
			}
			if _, err := kc.Core.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return nil, errs.Wrap(errs.Upstream, err, "create volume %s: %v", st.VolumeName, err)
			}
			if _, err := kc.Core.CoreV1().PersistentVolumeClaims(st.Namespace).Create(ctx, claimOf(st), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return nil, errs.Wrap(errs.Upstream, err, "create claim %s/%s: %v", st.Namespace, st.ClaimName, err)
			}
			return nil, nil
		},
	}
}

// unmountStep deletes the claim and then the volume.
func unmountStep(p *cloud.Provider, c *hyperpod.Cluster, st *Storage) ops.Step {
	return ops.Step{Name: phaseVolume, Title: "Remove " + volumeTitle(st),
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			if c.Status == hyperpod.ClusterDeleted {
				return ops.Observation{State: ops.NotNeeded, Message: "the cluster is deleted: its volume and claim went with it"}, nil
			}
			kc, err := p.KubeOf(ctx, c.EKS.Name)
			if err != nil {
				return ops.Observation{}, err
			}
			_, errClaim := kc.Core.CoreV1().PersistentVolumeClaims(st.Namespace).Get(ctx, st.ClaimName, metav1.GetOptions{})
			_, errVol := kc.Core.CoreV1().PersistentVolumes().Get(ctx, st.VolumeName, metav1.GetOptions{})
			for _, err := range []error{errClaim, errVol} {
				if err != nil && !apierrors.IsNotFound(err) {
					return ops.Observation{}, errs.Wrap(errs.Upstream, err, "read the volume of storage %s: %v", st.ID, err)
				}
			}
			switch {
			case apierrors.IsNotFound(errClaim) && apierrors.IsNotFound(errVol):
				return ops.Observation{State: ops.Done}, nil
			case run.Applied:
				return ops.Observation{State: ops.Pending, Message: "waiting for the claim and the volume to go"}, nil
			}
			return ops.Observation{State: ops.Absent}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			kc, err := p.KubeOf(ctx, c.EKS.Name)
			if err != nil {
				return nil, err
			}
			if err := kc.Core.CoreV1().PersistentVolumeClaims(st.Namespace).Delete(ctx, st.ClaimName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return nil, errs.Wrap(errs.Upstream, err, "delete claim %s/%s: %v", st.Namespace, st.ClaimName, err)
			}
			if err := kc.Core.CoreV1().PersistentVolumes().Delete(ctx, st.VolumeName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return nil, errs.Wrap(errs.Upstream, err, "delete volume %s: %v", st.VolumeName, err)
			}
			return nil, nil
		},
	}
}
