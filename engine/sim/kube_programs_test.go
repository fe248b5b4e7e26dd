package sim

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/instantstart/instantstart/engine/cloud"
)

// testBucket is the bucket downloadFixture's claim mounts.
const testBucket = "models-bucket"

// downloadFixture is schedFixture with bucket testBucket, a PV of the S3
// CSI driver on it with mountOptions, the claim s3-shared bound to that PV
// and the driver installed.
func downloadFixture(t *testing.T, mountOptions ...string) (*fixture, kubernetes.Interface) {
	f, kc, _ := schedFixture(t)
	f.bucket(testBucket)
	pv := testPV("s3-pv", "s3.csi.aws.com", nil)
	pv.Spec.CSI.VolumeAttributes = map[string]string{"bucketName": testBucket}
	pv.Spec.MountOptions = mountOptions
	core := kc.CoreV1()
	ok(core.PersistentVolumes().Create(f.ctx, pv, metav1.CreateOptions{})).must(t)
	ok(core.PersistentVolumeClaims("default").Create(f.ctx, testClaim("s3-shared", "s3-pv", "10Gi"), metav1.CreateOptions{})).must(t)
	ok(kc.StorageV1().CSIDrivers().Create(f.ctx, testCSIDriver("s3.csi.aws.com"), metav1.CreateOptions{})).must(t)
	return f, kc
}

// downloadJob is a Job whose pod runs model-download as the control plane
// makes it: model at revision into dest, its token in Secret "hf" (key
// "token") when there is one.
func downloadJob(name, model, revision, dest string, files []cloud.HubFile, mods ...jobSpec) *batchv1.Job {
	var list strings.Builder
	for _, f := range files {
		fmt.Fprintf(&list, "%d\t%s\n", f.Size, f.Path)
	}
	optional := true
	labels := map[string]string{kubeProgramLabel: kubeModelDownload}
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "download", Image: "docker.io/curlimages/curl:8.11.1",
					Env: []corev1.EnvVar{
						{Name: "MODEL_ID", Value: model}, {Name: "REVISION", Value: revision}, {Name: "DEST", Value: dest},
						{Name: "FILES", Value: list.String()}, {Name: "HF_ENDPOINT", Value: "https://huggingface.co"},
						{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
							LocalObjectReference: corev1.LocalObjectReference{Name: "hf"}, Key: "token", Optional: &optional}}},
					},
					VolumeMounts: []corev1.VolumeMount{{Name: "s3", MountPath: "/s3"}},
				}},
				Volumes: []corev1.Volume{{Name: "s3", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "s3-shared"}}}},
			},
		}},
	}
	for _, m := range mods {
		m(j)
	}
	return j
}

// fetchTime is how long the downloader takes over n bytes at the default
// speed.
func fetchTime(n int64) time.Duration {
	return scaled(time.Duration(float64(n) / 250e6 * float64(time.Second)))
}

// bucketObjects lists the sizes of testBucket's objects under prefix.
func bucketObjects(f *fixture, prefix string) map[string]int64 {
	f.t.Helper()
	out := ok(f.p.S3.ListObjectsV2(f.ctx, &s3.ListObjectsV2Input{Bucket: aws.String(testBucket), Prefix: aws.String(prefix)})).must(f.t)
	got := map[string]int64{}
	for _, o := range out.Contents {
		got[aws.ToString(o.Key)] = aws.ToInt64(o.Size)
	}
	return got
}

// advanceTo moves the test clock to moment t.
func (f *fixture) advanceTo(t time.Time) { f.clock.Advance(t.Sub(f.clock.Now())) }

// terminated is the state a pod's container ended in, nil while it runs.
func terminated(p *corev1.Pod) *corev1.ContainerStateTerminated {
	if len(p.Status.ContainerStatuses) == 0 {
		return nil
	}
	return p.Status.ContainerStatuses[0].State.Terminated
}

func TestKubeModelDownloadWritesTheFilesInTime(t *testing.T) {
	f, kc := downloadFixture(t)
	m := hubFind("Qwen/Qwen3-8B")
	files := m.files()
	created := f.clock.Now()
	ok(kc.BatchV1().Jobs("default").Create(f.ctx, downloadJob("dl", m.id, m.commit(), "/s3/models/qwen3-8b", files), metav1.CreateOptions{})).must(t)

	start := created.Add(scaled(kubePodStartTime))
	var total int64
	ends := map[string]time.Time{}
	for _, file := range files {
		total += file.Size
		ends["models/qwen3-8b/"+file.Path] = start.Add(fetchTime(total))
	}
	end := start.Add(fetchTime(total))
	half := start.Add(fetchTime(total / 2))
	doneBy := func(moment time.Time) map[string]int64 {
		want := map[string]int64{}
		for _, file := range files {
			if key := "models/qwen3-8b/" + file.Path; !ends[key].After(moment) {
				want[key] = file.Size
			}
		}
		return want
	}
	f.advanceTo(half)
	pod := jobPods(f, kc, "dl")[0] // a call to the cluster plays it up to now
	if got, want := bucketObjects(f, "models/"), doneBy(half); !maps.Equal(got, want) || len(want) == 0 || len(want) == len(files) {
		t.Errorf("half way the bucket holds %v, want %v", got, want)
	}
	if pod.Status.Phase != corev1.PodRunning {
		t.Errorf("half way the pod is %s", pod.Status.Phase)
	}

	before := end.Add(-time.Millisecond)
	f.advanceTo(before)
	if p, got, want := podIn(f, kc, pod.Name), bucketObjects(f, "models/"), doneBy(before); p.Status.Phase != corev1.PodRunning || !maps.Equal(got, want) || len(want) == len(files) {
		t.Errorf("just before the end the pod is %s with %v, want %v", p.Status.Phase, got, want)
	}
	f.advanceTo(end)
	p := podIn(f, kc, pod.Name)
	term := terminated(p)
	if p.Status.Phase != corev1.PodSucceeded || term == nil || term.ExitCode != 0 || term.Reason != "Completed" ||
		!term.StartedAt.Time.Equal(at(start)) || !term.FinishedAt.Time.Equal(at(end)) || podCondition(p, corev1.PodReady).Status != corev1.ConditionFalse {
		t.Errorf("at the end the pod is %s, %+v, Ready %+v", p.Status.Phase, term, podCondition(p, corev1.PodReady))
	}
	if got, want := bucketObjects(f, ""), doneBy(end); !maps.Equal(got, want) || len(want) != len(files) {
		t.Errorf("at the end the bucket holds %v, want %v", got, want)
	}
	head := ok(f.p.S3.HeadObject(f.ctx, &s3.HeadObjectInput{Bucket: aws.String(testBucket), Key: aws.String("models/qwen3-8b/config.json")})).must(t)
	if !head.LastModified.Equal(at(ends["models/qwen3-8b/config.json"])) {
		t.Errorf("config.json was written at %v, want %v", head.LastModified, at(ends["models/qwen3-8b/config.json"]))
	}
	j := jobIn(f, kc, "dl")
	if jobCondition(j, batchv1.JobComplete).Status != corev1.ConditionTrue || j.Status.CompletionTime == nil || !j.Status.CompletionTime.Time.Equal(at(end)) {
		t.Errorf("the Job: %+v", j.Status)
	}
}

// TestKubeProgramsPlayedForAnS3Read reads the bucket, with no call to the
// cluster since the download started, as an S3 read that plays the
// programs first sees it.
func TestKubeProgramsPlayedForAnS3Read(t *testing.T) {
	f, kc := downloadFixture(t)
	files := []cloud.HubFile{{Path: "a.bin", Size: 1e9}, {Path: "b.bin", Size: 1e9}}
	created := f.clock.Now()
	ok(kc.BatchV1().Jobs("default").Create(f.ctx, downloadJob("dl", "Qwen/Qwen2.5-0.5B-Instruct", "main", "/s3/m", files), metav1.CreateOptions{})).must(t)
	f.advanceTo(created.Add(scaled(kubePodStartTime) + fetchTime(1.5e9)))
	f.w.mu.Lock()
	tx := f.w.begin("us-west-2")
	tx.playPodPrograms()
	tx.saved()
	f.w.mu.Unlock()
	if got, want := bucketObjects(f, ""), map[string]int64{"m/a.bin": 1e9}; !maps.Equal(got, want) {
		t.Errorf("the bucket holds %v, want %v", got, want)
	}
}

// TestKubeModelDownloadOutlivesARestart reopens the world half way: the
// download goes on from the saved world and ends when it would have.
func TestKubeModelDownloadOutlivesARestart(t *testing.T) {
	f, kc := downloadFixture(t)
	m := hubFind("Qwen/Qwen3-8B")
	files := m.files()
	created := f.clock.Now()
	ok(kc.BatchV1().Jobs("default").Create(f.ctx, downloadJob("dl", m.id, m.commit(), "/s3/models/qwen3-8b", files), metav1.CreateOptions{})).must(t)
	var total int64
	for _, file := range files {
		total += file.Size
	}
	end := created.Add(scaled(kubePodStartTime) + fetchTime(total))
	f.advanceTo(created.Add(scaled(kubePodStartTime) + fetchTime(total/2)))
	jobIn(f, kc, "dl")
	f.w = f.world() // a restarted process on the same storage
	kc = f.kubeClients("eks").Core
	f.advanceTo(end.Add(-time.Millisecond))
	if j := jobIn(f, kc, "dl"); j.Status.Active != 1 {
		t.Fatalf("after the restart, before the end: %+v", j.Status)
	}
	f.advanceTo(end)
	if j := jobIn(f, kc, "dl"); jobCondition(j, batchv1.JobComplete).Status != corev1.ConditionTrue || !j.Status.CompletionTime.Time.Equal(at(end)) {
		t.Errorf("after the restart, at the end: %+v", j.Status)
	}
	if got := bucketObjects(f, ""); len(got) != len(files) {
		t.Errorf("after the restart the bucket holds %d files, want %d", len(got), len(files))
	}
}

func TestKubeModelDownloadRefusals(t *testing.T) {
	llama, qwen := hubFind("meta-llama/Llama-3.1-8B-Instruct"), hubFind("Qwen/Qwen2.5-0.5B-Instruct")
	good := "hf_" + strings.Repeat("a1B2c", 6)
	cases := []struct {
		name, model, revision, token string
		message                      string // the start of the pod's message; "" when it downloads
	}{
		{"gated without a token", llama.id, llama.commit(), "", "401 Unauthorized: Access to model meta-llama/Llama-3.1-8B-Instruct is restricted"},
		{"malformed token", qwen.id, qwen.commit(), "hf_short", "401 Unauthorized: Invalid credentials in Authorization header"},
		{"unknown model", "nobody/nothing", qwen.commit(), "", "404 Not Found: Repository Not Found"},
		{"unknown revision", qwen.id, strings.Repeat("0", 40), "", "404 Not Found: Revision Not Found"},
		{"gated with a token", llama.id, llama.commit(), good, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, kc := downloadFixture(t)
			if c.token != "" {
				secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hf", Namespace: "default"}, Data: map[string][]byte{"token": []byte(c.token)}}
				ok(kc.CoreV1().Secrets("default").Create(f.ctx, secret, metav1.CreateOptions{})).must(t)
			}
			files := []cloud.HubFile{{Path: "config.json", Size: 728}, {Path: "model.safetensors", Size: 988_097_824}}
			ok(kc.BatchV1().Jobs("default").Create(f.ctx, downloadJob("dl", c.model, c.revision, "/s3/models/m", files, backoffLimit(0)), metav1.CreateOptions{})).must(t)
			start := f.clock.Now().Add(scaled(kubePodStartTime))
			f.advanceTo(start)
			p := jobPods(f, kc, "dl")[0]
			term := terminated(&p)
			if c.message == "" {
				if p.Status.Phase != corev1.PodRunning {
					t.Errorf("with access the pod is %s, %+v", p.Status.Phase, term)
				}
				return
			}
			if p.Status.Phase != corev1.PodFailed || term == nil || term.ExitCode != 1 || term.Reason != "Error" || !strings.HasPrefix(term.Message, c.message) ||
				!term.FinishedAt.Time.Equal(at(start)) {
				t.Errorf("the pod is %s, %+v; want Failed at once: %s", p.Status.Phase, term, c.message)
			}
			if j := jobIn(f, kc, "dl"); jobCondition(j, batchv1.JobFailed).Reason != "BackoffLimitExceeded" {
				t.Errorf("the Job: %+v", j.Status)
			}
			if got := bucketObjects(f, ""); len(got) != 0 {
				t.Errorf("a refused download wrote %v", got)
			}
		})
	}
}

// TestKubeFailingProgramBacksOffAsIfWatched retries a refused download
// until the Job's back-off limit, once watched every 50ms and once looked
// at only at the end: both see the same history.
func TestKubeFailingProgramBacksOffAsIfWatched(t *testing.T) {
	llama := hubFind("meta-llama/Llama-3.1-8B-Instruct")
	files := []cloud.HubFile{{Path: "config.json", Size: 728}}
	var histories []string
	for _, watched := range []bool{true, false} {
		f, kc := downloadFixture(t)
		created := f.clock.Now()
		ok(kc.BatchV1().Jobs("default").Create(f.ctx, downloadJob("gated", llama.id, llama.commit(), "/s3/models/llama", files, backoffLimit(2)), metav1.CreateOptions{})).must(t)
		for range 200 {
			f.clock.Advance(50 * time.Millisecond)
			if watched {
				jobIn(f, kc, "gated")
			}
		}
		// Each pod starts, is refused at once and the next one waits its
		// back-off: 10s, then 20s.
		start := scaled(kubePodStartTime)
		failedAt := created.Add(start + scaled(10*time.Second) + start + scaled(20*time.Second) + start)
		j := jobIn(f, kc, "gated")
		if c := jobCondition(j, batchv1.JobFailed); c.Reason != "BackoffLimitExceeded" || !c.LastTransitionTime.Time.Equal(at(failedAt)) || j.Status.Failed != 3 {
			t.Errorf("watched %v: the Job failed %d, %+v; want BackoffLimitExceeded at %v", watched, j.Status.Failed, c, at(failedAt))
		}
		pods := jobPods(f, kc, "gated")
		if len(pods) != 3 {
			t.Fatalf("watched %v: %d pods, want 3", watched, len(pods))
		}
		for _, p := range pods {
			if term := terminated(&p); p.Status.Phase != corev1.PodFailed || term == nil || !strings.HasPrefix(term.Message, "401 Unauthorized") {
				t.Errorf("watched %v: pod %s is %s, %+v", watched, p.Name, p.Status.Phase, term)
			}
		}
		histories = append(histories, jobHistory(f, kc, "gated"))
	}
	if histories[0] != histories[1] {
		t.Errorf("watched:\n%s\nlooked at once:\n%s", histories[0], histories[1])
	}
}

func TestKubeModelDownloadResumesAfterANetworkFault(t *testing.T) {
	f, kc := downloadFixture(t)
	ok(f.w.InjectFault(Fault{Kind: FaultError, Service: "huggingface", Operation: "Download", Count: 1})).must(t)
	m := hubFind("Qwen/Qwen3-8B")
	files := m.files()
	created := f.clock.Now()
	ok(kc.BatchV1().Jobs("default").Create(f.ctx, downloadJob("dl", m.id, m.commit(), "/s3/models/qwen3-8b", files, backoffLimit(3)), metav1.CreateOptions{})).must(t)

	var total int64
	for _, file := range files {
		total += file.Size
	}
	start1 := created.Add(scaled(kubePodStartTime))
	failed := start1.Add(fetchTime(total / 2))
	var done, kept int64
	inProgress := ""
	want := map[string]int64{}
	for _, file := range files {
		done += file.Size
		if done > total/2 {
			if inProgress == "" {
				inProgress = file.Path
			}
			continue
		}
		want["models/qwen3-8b/"+file.Path] = file.Size
		kept += file.Size
	}

	f.advanceTo(failed)
	pods := jobPods(f, kc, "dl")
	term := terminated(&pods[0])
	if pods[0].Status.Phase != corev1.PodFailed || term == nil || term.ExitCode != 1 ||
		term.Message != "network error: connection reset while downloading "+inProgress || !term.FinishedAt.Time.Equal(at(failed)) {
		t.Fatalf("the first pod is %s, %+v; want Failed mid-way on %s", pods[0].Status.Phase, term, inProgress)
	}
	if got := bucketObjects(f, ""); !maps.Equal(got, want) {
		t.Errorf("after the fault the bucket holds %v, want %v", got, want)
	}
	if faults := f.w.Faults(); len(faults) != 0 {
		t.Errorf("the fault is still there: %+v", faults)
	}

	// The second pod fetches only what is missing.
	start2 := failed.Add(scaled(10*time.Second) + scaled(kubePodStartTime))
	end := start2.Add(fetchTime(total - kept))
	f.advanceTo(end.Add(-time.Millisecond))
	if j := jobIn(f, kc, "dl"); j.Status.Active != 1 || j.Status.Failed != 1 || jobCondition(j, batchv1.JobComplete).Status != "" {
		t.Fatalf("before the second pod ends: %+v", j.Status)
	}
	f.advanceTo(end)
	j := jobIn(f, kc, "dl")
	if jobCondition(j, batchv1.JobComplete).Status != corev1.ConditionTrue || j.Status.Succeeded != 1 || j.Status.Failed != 1 {
		t.Errorf("once the second pod ends: %+v", j.Status)
	}
	pods = jobPods(f, kc, "dl")
	if term := terminated(&pods[1]); len(pods) != 2 || pods[1].Status.Phase != corev1.PodSucceeded || !term.StartedAt.Time.Equal(at(start2)) || !term.FinishedAt.Time.Equal(at(end)) {
		t.Errorf("the second pod: %s, %+v", pods[1].Status.Phase, term)
	}
	for _, file := range files {
		want["models/qwen3-8b/"+file.Path] = file.Size
	}
	if got := bucketObjects(f, ""); !maps.Equal(got, want) {
		t.Errorf("at the end the bucket holds %v, want %v", got, want)
	}
}

// TestKubeModelDownloadStopsWithItsPod ends the pod part way through its
// second file, deleted by a client or by its Job's active deadline: the
// file done stays, under the volume's prefix, and nothing more is written.
func TestKubeModelDownloadStopsWithItsPod(t *testing.T) {
	m := hubFind("Qwen/Qwen2.5-0.5B-Instruct")
	files := []cloud.HubFile{{Path: "a.bin", Size: 1e9}, {Path: "b.bin", Size: 1e9}, {Path: "c.bin", Size: 1e9}}
	// The pod starts 20s after the Job; a.bin takes 4s, b.bin 4s more.
	cases := []struct {
		name   string
		mod    jobSpec
		reason string
	}{
		{"deleted", backoffLimit(0), "BackoffLimitExceeded"},
		{"past the deadline", deadlineOf(26), "DeadlineExceeded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, kc := downloadFixture(t, "allow-delete", "prefix team-a/")
			created := f.clock.Now()
			ok(kc.BatchV1().Jobs("default").Create(f.ctx, downloadJob("dl", m.id, "main", "/s3/models/small", files, c.mod), metav1.CreateOptions{})).must(t)
			if c.reason == "BackoffLimitExceeded" {
				f.advanceTo(created.Add(scaled(kubePodStartTime) + fetchTime(1.5e9)))
				if err := kc.CoreV1().Pods("default").Delete(f.ctx, jobPods(f, kc, "dl")[0].Name, metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			f.clock.Advance(time.Hour)
			j := jobIn(f, kc, "dl") // a call to the cluster plays it up to now
			if got, want := bucketObjects(f, ""), map[string]int64{"team-a/models/small/a.bin": 1e9}; !maps.Equal(got, want) {
				t.Errorf("the bucket holds %v, want %v", got, want)
			}
			if j.Status.Failed != 1 || jobCondition(j, batchv1.JobFailed).Reason != c.reason || len(jobPods(f, kc, "dl")) != 0 {
				t.Errorf("the Job: %+v, with %d pods", j.Status, len(jobPods(f, kc, "dl")))
			}
		})
	}
}

func TestKubeMountPrefix(t *testing.T) {
	cases := []struct {
		opts []string
		want string
	}{
		{nil, ""},
		{[]string{"allow-delete", "region us-west-2"}, ""},
		{[]string{"prefix models/"}, "models/"},
		{[]string{"--prefix=team-a"}, "team-a/"},
		{[]string{"prefix=a/b/"}, "a/b/"},
	}
	for _, c := range cases {
		if got := kubeMountPrefix(c.opts); got != c.want {
			t.Errorf("kubeMountPrefix(%q) = %q, want %q", c.opts, got, c.want)
		}
	}
}
