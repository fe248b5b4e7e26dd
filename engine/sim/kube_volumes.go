package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Static PersistentVolumes and their claims, and the CSI drivers that mount
// them. A settle plays the PV controller before it schedules pods:
//
//   - a new PV is Available;
//   - a Pending claim binds to the PV its spec.volumeName names, or to the
//     PV whose spec.claimRef names it (pre-bound), when that PV is not
//     bound to another claim, has the same storageClassName ("" for none;
//     there is no default StorageClass), the same volumeMode, every access
//     mode the claim asks, and at least the capacity it requests. The PV
//     becomes Bound with its claimRef set (namespace, name, uid), the claim
//     Bound with its capacity and access modes;
//   - a PV whose claim is gone (deleted, or deleted and created again) is
//     Released when its reclaim policy is Retain (or Recycle), and deleted
//     when it is Delete; a Bound claim whose PV is gone is Lost.
//
// A pod that mounts a claim that is missing or not Bound stays Pending,
// Unschedulable, with the scheduler's message (see claimsMessage). A
// pod bound to a node does not start while a volume it mounts needs a CSI
// driver the cluster lacks (see csiMissing): a driver is there when a
// CSIDriver object of its name exists or the EKS add-on that provides it
// (kubeCSIAddons) is ACTIVE; the pod then starts.
//
// Left out: dynamic provisioning (a claim of a StorageClass that names a
// provisioner stays Pending), claims without volumeName matched to any
// Available PV, label selectors on claims, PV node affinity, the
// pvc-protection and pv-protection finalizers (a claim in use can be
// deleted), volume expansion, attach limits and the CSINode objects.

// Resource keys of the storage objects.
const (
	kubePVsKey        = "v1/persistentvolumes"
	kubePVCsKey       = "v1/persistentvolumeclaims"
	kubeCSIDriversKey = "storage.k8s.io/v1/csidrivers"
)

// kubeCSIAddons maps the EKS add-ons that install a CSI driver to the
// driver's name.
var kubeCSIAddons = map[string]string{
	"aws-mountpoint-s3-csi-driver": "s3.csi.aws.com",
	"aws-fsx-csi-driver":           "fsx.csi.aws.com",
	"aws-ebs-csi-driver":           "ebs.csi.aws.com",
	"aws-efs-csi-driver":           "efs.csi.aws.com",
}

// kubeDecodeAs decodes a stored object into its Go type.
func kubeDecodeAs(obj *unstructured.Unstructured, into any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, into); err != nil {
		return apierrors.NewInternalError(fmt.Errorf("decode %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err))
	}
	return nil
}

// putTyped stores obj, a Go object decoded from cur (nil for a new one),
// if it changed.
func (s *kubeSession) putTyped(res string, cur *unstructured.Unstructured, obj any) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		// An object decoded from its stored form always encodes again.
		panic(fmt.Sprintf("sim: encode %s: %v", res, err))
	}
	s.put(res, cur, &unstructured.Unstructured{Object: content})
}

// kubeVolumes is one settle's view of the PVs and claims.
type kubeVolumes struct {
	pvs    map[string]*corev1.PersistentVolume      // by name
	claims map[string]*corev1.PersistentVolumeClaim // by namespace/name
	stored map[*corev1.PersistentVolume]*unstructured.Unstructured
	cstore map[*corev1.PersistentVolumeClaim]*unstructured.Unstructured
}

// volumes reads the stored PVs and claims.
func (s *kubeSession) volumes() (*kubeVolumes, error) {
	v := &kubeVolumes{
		pvs: map[string]*corev1.PersistentVolume{}, claims: map[string]*corev1.PersistentVolumeClaim{},
		stored: map[*corev1.PersistentVolume]*unstructured.Unstructured{}, cstore: map[*corev1.PersistentVolumeClaim]*unstructured.Unstructured{},
	}
	pvs, err := s.list(kubePVsKey, "")
	if err != nil {
		return nil, err
	}
	for _, obj := range pvs {
		pv := &corev1.PersistentVolume{}
		if err := kubeDecodeAs(obj, pv); err != nil {
			return nil, err
		}
		v.pvs[pv.Name], v.stored[pv] = pv, obj
	}
	claims, err := s.list(kubePVCsKey, "")
	if err != nil {
		return nil, err
	}
	for _, obj := range claims {
		c := &corev1.PersistentVolumeClaim{}
		if err := kubeDecodeAs(obj, c); err != nil {
			return nil, err
		}
		v.claims[kubeObjectKey(c.Namespace, c.Name)], v.cstore[c] = c, obj
	}
	return v, nil
}

// bindVolumes plays the PV controller (see the top of this file).
func (s *kubeSession) bindVolumes() error {
	v, err := s.volumes()
	if err != nil {
		return err
	}
	if len(v.pvs) == 0 && len(v.claims) == 0 {
		return nil
	}
	now := s.t.now
	// Claims that lost their PV, or are gone from it.
	for _, name := range sortedKeys(v.pvs) {
		pv := v.pvs[name]
		ref := pv.Spec.ClaimRef
		if pv.Status.Phase == corev1.VolumeBound && ref != nil {
			c := v.claims[kubeObjectKey(ref.Namespace, ref.Name)]
			if c != nil && c.UID == ref.UID {
				continue
			}
			if pv.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimDelete {
				s.remove(kubePVsKey, v.stored[pv])
				delete(v.pvs, name)
				continue
			}
			kubePVPhase(pv, corev1.VolumeReleased, now)
			s.putTyped(kubePVsKey, v.stored[pv], pv)
			continue
		}
		if pv.Status.Phase == "" || pv.Status.Phase == corev1.VolumePending {
			kubePVPhase(pv, corev1.VolumeAvailable, now)
			s.putTyped(kubePVsKey, v.stored[pv], pv)
		}
	}
	claims := slices.SortedFunc(func(yield func(*corev1.PersistentVolumeClaim) bool) {
		for _, c := range v.claims {
			if !yield(c) {
				return
			}
		}
	}, func(a, b *corev1.PersistentVolumeClaim) int {
		if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(kubeObjectKey(a.Namespace, a.Name), kubeObjectKey(b.Namespace, b.Name))
	})
	for _, c := range claims {
		switch c.Status.Phase {
		case corev1.ClaimBound:
			if pv := v.pvs[c.Spec.VolumeName]; pv == nil || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID != c.UID {
				c.Status.Phase = corev1.ClaimLost
				s.putTyped(kubePVCsKey, v.cstore[c], c)
			}
			continue
		case corev1.ClaimLost:
			continue
		}
		pv := v.volumeFor(c)
		if pv == nil || !kubeBindable(pv, c) {
			if c.Status.Phase == "" {
				c.Status.Phase = corev1.ClaimPending
				s.putTyped(kubePVCsKey, v.cstore[c], c)
			}
			continue
		}
		pv.Spec.ClaimRef = &corev1.ObjectReference{
			Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: c.Namespace, Name: c.Name,
			UID: c.UID, ResourceVersion: v.cstore[c].GetResourceVersion(),
		}
		kubePVPhase(pv, corev1.VolumeBound, now)
		s.putTyped(kubePVsKey, v.stored[pv], pv)
		if c.Spec.VolumeName == "" {
			c.Spec.VolumeName = pv.Name
			kubeAnnotate(&c.ObjectMeta, "pv.kubernetes.io/bound-by-controller", "yes")
		}
		kubeAnnotate(&c.ObjectMeta, "pv.kubernetes.io/bind-completed", "yes")
		c.Status.Phase = corev1.ClaimBound
		c.Status.AccessModes = slices.Clone(pv.Spec.AccessModes)
		c.Status.Capacity = corev1.ResourceList{}
		for k, q := range pv.Spec.Capacity {
			c.Status.Capacity[k] = q.DeepCopy()
		}
		s.putTyped(kubePVCsKey, v.cstore[c], c)
	}
	return nil
}

// volumeFor finds the PV claim c is for: the one it names, or one
// pre-bound to it.
func (v *kubeVolumes) volumeFor(c *corev1.PersistentVolumeClaim) *corev1.PersistentVolume {
	if c.Spec.VolumeName != "" {
		return v.pvs[c.Spec.VolumeName]
	}
	for _, name := range sortedKeys(v.pvs) {
		ref := v.pvs[name].Spec.ClaimRef
		if ref != nil && ref.Namespace == c.Namespace && ref.Name == c.Name && (ref.UID == "" || ref.UID == c.UID) {
			return v.pvs[name]
		}
	}
	return nil
}

// kubeBindable tells whether pv can be bound to claim c.
func kubeBindable(pv *corev1.PersistentVolume, c *corev1.PersistentVolumeClaim) bool {
	if pv.DeletionTimestamp != nil || (pv.Status.Phase != corev1.VolumeAvailable && pv.Status.Phase != corev1.VolumeBound) {
		return false
	}
	if ref := pv.Spec.ClaimRef; ref != nil && (ref.Namespace != c.Namespace || ref.Name != c.Name || (ref.UID != "" && ref.UID != c.UID)) {
		return false
	}
	class := ""
	if c.Spec.StorageClassName != nil {
		class = *c.Spec.StorageClassName
	}
	if pv.Spec.StorageClassName != class {
		return false
	}
	if kubeVolumeMode(pv.Spec.VolumeMode) != kubeVolumeMode(c.Spec.VolumeMode) {
		return false
	}
	for _, m := range c.Spec.AccessModes {
		if !slices.Contains(pv.Spec.AccessModes, m) {
			return false
		}
	}
	want := c.Spec.Resources.Requests[corev1.ResourceStorage]
	have := pv.Spec.Capacity[corev1.ResourceStorage]
	return have.Cmp(want) >= 0
}

func kubeVolumeMode(m *corev1.PersistentVolumeMode) corev1.PersistentVolumeMode {
	if m == nil {
		return corev1.PersistentVolumeFilesystem
	}
	return *m
}

// kubePVPhase moves pv to phase at, if it is not there.
func kubePVPhase(pv *corev1.PersistentVolume, phase corev1.PersistentVolumePhase, at time.Time) {
	if pv.Status.Phase == phase {
		return
	}
	pv.Status.Phase = phase
	when := metav1.NewTime(at)
	pv.Status.LastPhaseTransitionTime = &when
}

func kubeAnnotate(m *metav1.ObjectMeta, key, value string) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[key] = value
}

// claimsMessage is why the scheduler leaves pod p unbound for its
// claims, or "": a claim it mounts is missing or not yet Bound.
func (s *kubeSession) claimsMessage(p *kubeSchedPod) (string, error) {
	for _, vol := range p.pod.Spec.Volumes {
		if vol.PersistentVolumeClaim == nil {
			continue
		}
		name := vol.PersistentVolumeClaim.ClaimName
		obj, err := s.get(kubePVCsKey, p.pod.Namespace, name)
		if err != nil {
			return "", err
		}
		if obj == nil {
			return fmt.Sprintf("persistentvolumeclaim %q not found", name), nil
		}
		if obj.GetDeletionTimestamp() != nil {
			return fmt.Sprintf("persistentvolumeclaim %q is being deleted", name), nil
		}
		if phase, _, _ := unstructured.NestedString(obj.Object, "status", "phase"); phase != string(corev1.ClaimBound) {
			return "pod has unbound immediate PersistentVolumeClaims", nil
		}
	}
	return "", nil
}

// csiMissing tells, for a pod bound to a node, whether a volume it
// mounts needs a CSI driver the cluster lacks, and the kubelet's message
// for it. Otherwise it returns the moment since which every driver it
// needs is there (zero when it needs none).
func (s *kubeSession) csiMissing(pod *corev1.Pod) (string, time.Time) {
	var since time.Time
	for _, vol := range pod.Spec.Volumes {
		driver, volName := "", vol.Name
		switch {
		case vol.CSI != nil:
			driver = vol.CSI.Driver
		case vol.PersistentVolumeClaim != nil:
			claim, _ := s.get(kubePVCsKey, pod.Namespace, vol.PersistentVolumeClaim.ClaimName)
			if claim == nil {
				continue
			}
			pvName, _, _ := unstructured.NestedString(claim.Object, "spec", "volumeName")
			pv, _ := s.get(kubePVsKey, "", pvName)
			if pv == nil {
				continue
			}
			driver, _, _ = unstructured.NestedString(pv.Object, "spec", "csi", "driver")
			volName = pvName
		}
		if driver == "" {
			continue
		}
		at, ok := s.csiDriverSince(driver)
		if !ok {
			return fmt.Sprintf("MountVolume.SetUp failed for volume %q : kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: driver name %s not found in the list of registered CSI drivers", volName, driver), time.Time{}
		}
		if at.After(since) {
			since = at
		}
	}
	return "", since
}

// csiDriverSince tells whether CSI driver name is installed in the
// cluster, and since when.
func (s *kubeSession) csiDriverSince(name string) (time.Time, bool) {
	if obj, _ := s.get(kubeCSIDriversKey, "", name); obj != nil {
		return obj.GetCreationTimestamp().Time, true
	}
	for _, addon := range sortedKeys(kubeCSIAddons) {
		if kubeCSIAddons[addon] != name {
			continue
		}
		ad := s.eks.Addons[addon]
		if ad == nil {
			continue
		}
		if st := ad.status(s.t.now); st == ekstypes.AddonStatusActive || st == ekstypes.AddonStatusUpdating {
			return ad.Life.ReadyAt, true
		}
	}
	return time.Time{}, false
}
