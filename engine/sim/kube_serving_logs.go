package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The logs of the model servers, as the pods/log subresource serves them
// (kube_logs.go): what vLLM, SGLang, the inference operator's worker and
// the SGLang router print as they start and load their model, computed
// from the load of kube_serving.go, so that a reader sees the load's
// progress and, under a gpuoom fault, the torch.OutOfMemoryError that
// ended it (what the diagnose-endpoint skill looks for). Requests are not
// logged one by one.

// serverLog is the log of serving pod pod, a server of kind, as of the
// session's moment: only its current container's lines (the last
// restart's), ended once an out-of-memory load has ended it.
func (s *kubeSession) serverLog(pod *corev1.Pod, kind string, ended bool) kubeLogView {
	load := s.serverLoad(pod, kind)
	c := &pod.Spec.Containers[0]
	args := append(slices.Clone(c.Command), c.Args...)
	model := servingModelPath(pod, kind)
	served := kubeArg(args, "--served-model-name")
	if served == "" {
		served = model
	}
	took := kubeModelLoadTime(load.bytes).Seconds()
	gib := float64(load.bytes) / (1 << 30)
	var lines []kubeLogLine
	add := func(at time.Time, format string, a ...any) {
		lines = append(lines, kubeLogLine{At: at, Text: fmt.Sprintf(format, a...)})
	}
	start, done := load.started, load.loadedAt
	vllm := func(at time.Time, level, src, format string, a ...any) {
		add(at, "%s %s [%s] %s", level, at.UTC().Format("01-02 15:04:05"), src, fmt.Sprintf(format, a...))
	}
	sglang := func(at time.Time, format string, a ...any) {
		add(at, "[%s] %s", at.UTC().Format("2006-01-02 15:04:05"), fmt.Sprintf(format, a...))
	}
	traceback := func(prefix func(at time.Time, format string, a ...any)) {
		prefix(done, "Traceback (most recent call last):")
		prefix(done, "  File \"/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py\", line 1355, in convert")
		prefix(done, "%s", kubeCUDAOutOfMemory)
	}
	switch kind {
	case "vllm":
		vllm(start, "INFO", "api_server.py:1805", "vLLM API server version %s", kubeImageVersion(c.Image))
		vllm(start, "INFO", "api_server.py:1806", "args: model=%q, served_model_name=[%q], tensor_parallel_size=%s, host=%q, port=%s",
			model, served, cmp.Or(kubeArg(args, "--tensor-parallel-size"), "1"), cmp.Or(kubeArg(args, "--host"), "0.0.0.0"), cmp.Or(kubeArg(args, "--port"), "8000"))
		vllm(start, "INFO", "gpu_model_runner.py:1843", "Starting to load model %s...", model)
		if load.oom {
			vllm(done, "ERROR", "core.py:700", "EngineCore failed to start.")
			traceback(func(at time.Time, format string, a ...any) { vllm(at, "ERROR", "core.py:700", format, a...) })
			break
		}
		vllm(done, "INFO", "gpu_model_runner.py:1892", "Model loading took %.4f GiB and %.6f seconds", gib, took)
		vllm(done, "INFO", "api_server.py:1857", "Starting vLLM API server 0 on http://%s:%s", cmp.Or(kubeArg(args, "--host"), "0.0.0.0"), cmp.Or(kubeArg(args, "--port"), "8000"))
		add(done, "INFO:     Application startup complete.")
	case "sglang":
		sglang(start, "server_args=ServerArgs(model_path=%q, served_model_name=%q, tp_size=%s, host=%q, port=%s)",
			model, served, cmp.Or(kubeArg(args, "--tp"), "1"), cmp.Or(kubeArg(args, "--host"), "127.0.0.1"), cmp.Or(kubeArg(args, "--port"), "30000"))
		sglang(start, "Load weight begin.")
		if load.oom {
			sglang(done, "Scheduler hit an exception:")
			traceback(sglang)
			break
		}
		sglang(done, "Load weight end. mem usage=%.2f GB.", float64(load.bytes)/1e9)
		sglang(done, "The server is fired up and ready to roll!")
	case "worker":
		add(start, "INFO  ModelServer Starting model server, loading the model from %s", model)
		if load.oom {
			add(done, "ERROR ModelServer Failed to load the model")
			traceback(func(at time.Time, format string, a ...any) { add(at, "ERROR ModelServer "+format, a...) })
			break
		}
		add(done, "INFO  ModelServer Model loaded: %.2f GiB in %.1f seconds", gib, took)
		add(done, "INFO  ModelServer Model server started, listening on port %d", kubeContainerPort(c))
	case "router":
		add(start, "INFO sglang_router: Starting router on %s:%s with policy %s", cmp.Or(kubeArg(args, "--host"), "0.0.0.0"),
			cmp.Or(kubeArg(args, "--port"), "30000"), cmp.Or(kubeArg(args, "--policy"), "cache_aware"))
		add(start, "INFO sglang_router: Service discovery: selector %s in namespace %s, port %s", kubeArg(args, "--selector"),
			cmp.Or(kubeArg(args, "--service-discovery-namespace"), pod.Namespace), kubeArg(args, "--service-discovery-port"))
	}
	lines = slices.DeleteFunc(lines, func(ln kubeLogLine) bool { return ln.At.After(s.t.now) })
	return kubeLogView{lines: lines, ended: ended || (load.oom && !s.t.now.Before(done))}
}

// kubeImageVersion is the tag of an image reference, without a leading v.
func kubeImageVersion(image string) string {
	if i := strings.LastIndex(image, ":"); i >= 0 && !strings.Contains(image[i:], "/") {
		return strings.TrimPrefix(image[i+1:], "v")
	}
	return "latest"
}

// kubeContainerPort is the first port container c declares, 8080 when none.
func kubeContainerPort(c *corev1.Container) int32 {
	if len(c.Ports) > 0 {
		return c.Ports[0].ContainerPort
	}
	return 8080
}
