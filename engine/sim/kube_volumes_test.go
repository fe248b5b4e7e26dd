package sim

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func testPV(name, driver string, ref *corev1.ObjectReference) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
		Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Gi")},
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
		ClaimRef:               ref,
		PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: name}},
	}}
}

func testClaim(name, volume, size string) *corev1.PersistentVolumeClaim {
	empty := ""
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, StorageClassName: &empty, VolumeName: volume,
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
	}}
}

func mounting(claim string) podSpec {
	return func(s *corev1.PodSpec) {
		s.Volumes = append(s.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	}
}

// TestKubeStaticVolumesBindAndPodsWaitForThem binds a claim to the volume
// it names, leaves a claim asking more than its volume has Pending, holds a
// pod back while its claim is unbound and while its CSI driver is missing,
// and releases a volume whose claim is deleted.
func TestKubeStaticVolumesBindAndPodsWaitForThem(t *testing.T) {
	f, kc, nodes := schedFixture(t)
	core := kc.CoreV1()
	ok(core.PersistentVolumes().Create(f.ctx, testPV("pv-data", "s3.csi.aws.com", &corev1.ObjectReference{Namespace: "default", Name: "data"}), metav1.CreateOptions{})).must(t)
	ok(core.PersistentVolumes().Create(f.ctx, testPV("pv-small", "s3.csi.aws.com", nil), metav1.CreateOptions{})).must(t)
	ok(core.Pods("default").Create(f.ctx, testPod("early", mounting("data")), metav1.CreateOptions{})).must(t)
	p := podIn(f, kc, "early")
	if sched := podCondition(p, corev1.PodScheduled); p.Spec.NodeName != "" || sched.Reason != corev1.PodReasonUnschedulable || sched.Message != `persistentvolumeclaim "data" not found` {
		t.Errorf("a pod whose claim is missing: node %q, %+v", p.Spec.NodeName, sched)
	}

	ok(core.PersistentVolumeClaims("default").Create(f.ctx, testClaim("data", "pv-data", "10Gi"), metav1.CreateOptions{})).must(t)
	ok(core.PersistentVolumeClaims("default").Create(f.ctx, testClaim("big", "pv-small", "1Ti"), metav1.CreateOptions{})).must(t)
	claim := ok(core.PersistentVolumeClaims("default").Get(f.ctx, "data", metav1.GetOptions{})).must(t)
	pv := ok(core.PersistentVolumes().Get(f.ctx, "pv-data", metav1.GetOptions{})).must(t)
	if claim.Status.Phase != corev1.ClaimBound || pv.Status.Phase != corev1.VolumeBound || pv.Spec.ClaimRef.UID != claim.UID || claim.Status.Capacity.Storage().String() != "100Gi" {
		t.Errorf("claim %s (capacity %v), volume %s with claimRef %+v", claim.Status.Phase, claim.Status.Capacity, pv.Status.Phase, pv.Spec.ClaimRef)
	}
	if big := ok(core.PersistentVolumeClaims("default").Get(f.ctx, "big", metav1.GetOptions{})).must(t); big.Status.Phase != corev1.ClaimPending {
		t.Errorf("a claim asking more than its volume holds is %s", big.Status.Phase)
	}

	// Bound now, the pod gets a node, but cannot start while the cluster
	// has no S3 CSI driver.
	p = podIn(f, kc, "early")
	if p.Spec.NodeName != nodes["cpu"] {
		t.Fatalf("with its claim bound the pod is on %q", p.Spec.NodeName)
	}
	f.clock.Advance(10 * scaled(kubePodStartTime))
	if p := podIn(f, kc, "early"); p.Status.Phase != corev1.PodPending {
		t.Fatalf("without its CSI driver the pod is %s", p.Status.Phase)
	}
	ok(kc.StorageV1().CSIDrivers().Create(f.ctx, testCSIDriver("s3.csi.aws.com"), metav1.CreateOptions{})).must(t)
	if p := podIn(f, kc, "early"); p.Status.Phase != corev1.PodRunning {
		t.Fatalf("with its CSI driver installed the pod is %s", p.Status.Phase)
	}

	if err := core.PersistentVolumeClaims("default").Delete(f.ctx, "data", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if pv := ok(core.PersistentVolumes().Get(f.ctx, "pv-data", metav1.GetOptions{})).must(t); pv.Status.Phase != corev1.VolumeReleased {
		t.Errorf("a Retain volume whose claim is gone is %s", pv.Status.Phase)
	}
}

func testCSIDriver(name string) *storagev1.CSIDriver {
	return &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: name}}
}
