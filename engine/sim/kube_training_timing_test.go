package sim

import (
	"testing"
	"time"
)

// The expected times below are worked out by hand from the timings of an
// attempt: 45 s of start-up before the first step, 2 s a step, a step
// line every 10 steps, 5 s from the last step to the exit, all divided by
// the world's speed.

// trainT0 is when the attempts of these tests start.
var trainT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// after is the moment d after trainT0.
func after(d time.Duration) time.Time { return trainT0.Add(d) }

// checkWhen reports an answer (a moment, whether there is one) that is not
// (trainT0+want, wantOK); the moment of a false answer does not count.
func checkWhen(t *testing.T, what string, got time.Time, ok bool, want time.Duration, wantOK bool) {
	t.Helper()
	if ok != wantOK || (ok && !got.Equal(after(want))) {
		t.Errorf("%s = %v (+%v), %v; want +%v, %v", what, got, got.Sub(trainT0), ok, want, wantOK)
	}
}

// timingRec is a job of 100 steps that saves a checkpoint every 30.
func timingRec() *kubeTrainRec {
	return &kubeTrainRec{Plan: kubeTrainPlan{MaxSteps: 100, SaveSteps: 30}}
}

func TestTrainingStepTimes(t *testing.T) {
	cases := []struct {
		name  string
		speed float64
		from  int64
		step  int64
		want  time.Time
	}{
		{"the first step ends a step after the start-up", 1, 0, 1, after(47 * time.Second)},
		{"step 10", 1, 0, 10, after(65 * time.Second)},
		{"the last step", 1, 0, 100, after(245 * time.Second)},
		{"a resumed attempt's first step", 1, 30, 31, after(47 * time.Second)},
		{"a resumed attempt's last step", 1, 30, 100, after(185 * time.Second)},
		{"ten times faster", 10, 0, 100, after(24500 * time.Millisecond)},
	}
	for _, c := range cases {
		w := &World{speed: c.speed}
		a := &kubeTrainAttempt{Start: trainT0, From: c.from}
		if got := timingRec().stepAt(w, a, c.step); !got.Equal(c.want) {
			t.Errorf("%s: stepAt(%d) = %v, want %v", c.name, c.step, got.Sub(trainT0), c.want.Sub(trainT0))
		}
	}
}

func TestTrainingDoneAt(t *testing.T) {
	cases := []struct {
		name  string
		speed float64
		from  int64
		want  time.Time
	}{
		{"from the start", 1, 0, after(250 * time.Second)},
		{"from step 30", 1, 30, after(190 * time.Second)},
		{"ten times faster", 10, 0, after(25 * time.Second)},
	}
	for _, c := range cases {
		w := &World{speed: c.speed}
		a := &kubeTrainAttempt{Start: trainT0, From: c.from}
		if got := timingRec().doneAt(w, a); !got.Equal(c.want) {
			t.Errorf("%s: doneAt = %v, want %v", c.name, got.Sub(trainT0), c.want.Sub(trainT0))
		}
	}
}

func TestTrainingReached(t *testing.T) {
	cases := []struct {
		name  string
		speed float64
		from  int64
		at    time.Duration
		want  int64
	}{
		{"in the start-up", 1, 0, 44 * time.Second, 0},
		{"in a resumed attempt's start-up", 1, 30, 44 * time.Second, 30},
		{"the first step begun, not done", 1, 0, 46 * time.Second, 0},
		{"the first step done", 1, 0, 47 * time.Second, 1},
		{"eleven steps", 1, 0, 67 * time.Second, 11},
		{"eleven steps on from step 30", 1, 30, 67 * time.Second, 41},
		{"long after the end", 1, 0, time.Hour, 100},
		{"ten times faster", 10, 0, 5500 * time.Millisecond, 5},
	}
	for _, c := range cases {
		w := &World{speed: c.speed}
		a := &kubeTrainAttempt{Start: trainT0, From: c.from}
		if got := timingRec().reached(w, a, after(c.at)); got != c.want {
			t.Errorf("%s: reached at +%v = %d, want %d", c.name, c.at, got, c.want)
		}
	}
}

func TestTrainingLastLoggedAt(t *testing.T) {
	cases := []struct {
		name     string
		maxSteps int64
		from     int64
		at       time.Duration
		want     time.Duration
		logged   bool
	}{
		{"no line before step 10", 100, 0, 64 * time.Second, 0, false},
		{"step 11 reached, step 10 logged", 100, 0, 67 * time.Second, 65 * time.Second, true},
		{"the last step", 100, 0, time.Hour, 245 * time.Second, true},
		{"a last step off the log's beat is logged", 95, 0, time.Hour, 235 * time.Second, true},
		{"a resumed attempt logs step 40", 100, 30, 67 * time.Second, 65 * time.Second, true},
		{"a resumed attempt has not logged before step 40", 100, 30, 60 * time.Second, 0, false},
	}
	w := &World{speed: 1}
	for _, c := range cases {
		rec := &kubeTrainRec{Plan: kubeTrainPlan{MaxSteps: c.maxSteps}}
		a := &kubeTrainAttempt{Start: trainT0, From: c.from}
		got, logged := rec.lastLoggedAt(w, a, after(c.at))
		checkWhen(t, c.name+": lastLoggedAt", got, logged, c.want, c.logged)
	}
}

func TestTrainingResumeStep(t *testing.T) {
	cases := []struct {
		name    string
		save    int64
		attempt kubeTrainAttempt
		want    int64
	}{
		{"a crash at step 40 resumes from the checkpoint of step 30", 30,
			kubeTrainAttempt{Fault: FaultCrash, FaultAt: after(125 * time.Second), EndAt: after(130 * time.Second)}, 30},
		{"a job that saves no checkpoint starts over", 0,
			kubeTrainAttempt{Fault: FaultCrash, FaultAt: after(125 * time.Second), EndAt: after(130 * time.Second)}, 0},
		{"a slow job resumes from where it ended, not where it slowed", 30,
			kubeTrainAttempt{Fault: FaultSlow, FaultAt: after(60 * time.Second), EndAt: after(205 * time.Second)}, 60},
		{"an attempt with no fault counts to its end", 30,
			kubeTrainAttempt{EndAt: after(250 * time.Second)}, 90},
		{"never behind the checkpoint it resumed from", 30,
			kubeTrainAttempt{From: 40, Fault: FaultCrash, FaultAt: after(47 * time.Second), EndAt: after(52 * time.Second)}, 40},
	}
	w := &World{speed: 1}
	for _, c := range cases {
		rec := &kubeTrainRec{Plan: kubeTrainPlan{MaxSteps: 100, SaveSteps: c.save}}
		a := c.attempt
		a.Start = trainT0
		if got := rec.resumeStep(w, &a); got != c.want {
			t.Errorf("%s: resumeStep = %d, want %d", c.name, got, c.want)
		}
	}
}

// slowPlan is a job of 100 steps on 8 GPUs (19,200 tokens a second, 192
// when slow) whose throughput rule fires on 3 step lines under threshold.
func slowPlan(threshold float64) kubeTrainPlan {
	return kubeTrainPlan{MaxSteps: 100, TokensPerSec: 19200, SlowRule: "throughput", SlowThreshold: threshold, SlowPoints: 3}
}

func TestTrainingAttemptEnd(t *testing.T) {
	hang := kubeTrainPlan{MaxSteps: 100, HangRule: "progress", HangAfter: 120 * time.Second, FirstStepCutoff: 300 * time.Second}
	cases := []struct {
		name    string
		plan    kubeTrainPlan
		fault   string
		faultAt time.Duration
		want    time.Duration
		ends    bool
	}{
		{"nothing strikes: done after the last step", kubeTrainPlan{MaxSteps: 100}, "", 0, 250 * time.Second, true},
		{"a crash is noticed 5 s later", kubeTrainPlan{MaxSteps: 100}, FaultCrash, 125 * time.Second, 130 * time.Second, true},
		{"an NCCL timeout after the watchdog's 600 s", kubeTrainPlan{MaxSteps: 100}, FaultNCCL, 125 * time.Second, 725 * time.Second, true},
		{"a lost node at once", kubeTrainPlan{MaxSteps: 100}, "node", 125 * time.Second, 125 * time.Second, true},
		{"a hang no rule sees never ends", kubeTrainPlan{MaxSteps: 100}, FaultHang, 125 * time.Second, 0, false},
		{"a hang on a logged step: the rule's time after that line", hang, FaultHang, 125 * time.Second, 245 * time.Second, true},
		{"a hang between lines: after the last line", hang, FaultHang, 130 * time.Second, 245 * time.Second, true},
		{"a hang before the first line: the start cut-off", hang, FaultHang, 50 * time.Second, 300 * time.Second, true},
		{"a slowness seen on the third line after it", slowPlan(1000), FaultSlow, 125 * time.Second, 185 * time.Second, true},
		{"a slowness after step 41 is seen on line 70 too", slowPlan(1000), FaultSlow, 127 * time.Second, 185 * time.Second, true},
		{"a slowness over the rule's threshold runs to the end", slowPlan(150), FaultSlow, 125 * time.Second, 250 * time.Second, true},
		{"a slowness with too few lines left runs to the end", slowPlan(1000), FaultSlow, 185 * time.Second, 250 * time.Second, true},
	}
	w := &World{speed: 1}
	for _, c := range cases {
		rec := &kubeTrainRec{Plan: c.plan}
		a := &kubeTrainAttempt{Start: trainT0, Fault: c.fault}
		if c.fault != "" {
			a.FaultAt = after(c.faultAt)
		}
		got, ends := rec.attemptEnd(w, a)
		checkWhen(t, c.name+": attemptEnd", got, ends, c.want, c.ends)
	}
}

func TestTrainingSlowDetectedAt(t *testing.T) {
	cases := []struct {
		name     string
		plan     kubeTrainPlan
		faultAt  time.Duration
		want     time.Duration
		detected bool
	}{
		{"slowed at step 40: lines 50, 60 and 70 fire the rule", slowPlan(1000), 125 * time.Second, 185 * time.Second, true},
		{"slowed at step 61: lines 70, 80 and 90", slowPlan(1000), 167 * time.Second, 225 * time.Second, true},
		{"the third line would be the last step", slowPlan(1000), 185 * time.Second, 0, false},
		{"192 tokens a second is not under a threshold of 150", slowPlan(150), 125 * time.Second, 0, false},
		{"no throughput rule", kubeTrainPlan{MaxSteps: 100, TokensPerSec: 19200}, 125 * time.Second, 0, false},
	}
	w := &World{speed: 1}
	for _, c := range cases {
		rec := &kubeTrainRec{Plan: c.plan}
		a := &kubeTrainAttempt{Start: trainT0, Fault: FaultSlow, FaultAt: after(c.faultAt)}
		got, detected := rec.slowDetectedAt(w, a)
		checkWhen(t, c.name+": slowDetectedAt", got, detected, c.want, c.detected)
	}
}

func TestTrainingAttemptLogs(t *testing.T) {
	cases := []struct {
		fault     string
		at        time.Duration
		slowed    bool
		stopsLogs bool
	}{
		{"", 200 * time.Second, false, false},
		{FaultSlow, 124 * time.Second, false, false},
		{FaultSlow, 125 * time.Second, true, false},
		{FaultCrash, 200 * time.Second, false, true},
		{FaultHang, 200 * time.Second, false, true},
		{"node", 200 * time.Second, false, true},
	}
	for _, c := range cases {
		a := &kubeTrainAttempt{Start: trainT0, Fault: c.fault}
		if c.fault != "" {
			a.FaultAt = after(125 * time.Second)
		}
		if got := a.slowed(after(c.at)); got != c.slowed {
			t.Errorf("fault %q: slowed at +%v = %v, want %v", c.fault, c.at, got, c.slowed)
		}
		if got := a.stopsLogs(); got != c.stopsLogs {
			t.Errorf("fault %q: stopsLogs = %v, want %v", c.fault, got, c.stopsLogs)
		}
	}
}

func TestTrainingNextWake(t *testing.T) {
	running := []kubeTrainAttempt{{Start: trainT0}}
	ended := []kubeTrainAttempt{{Start: trainT0, Fault: FaultCrash, FaultAt: after(125 * time.Second), EndAt: after(130 * time.Second)}}
	cases := []struct {
		name     string
		state    string
		attempts []kubeTrainAttempt
		nextAt   time.Duration
		now      time.Duration
		want     time.Duration // 0: none
	}{
		{"a running attempt wakes the operator at its end", trainRunning, running, 0, 100 * time.Second, 250 * time.Second},
		{"not at an end that has come", trainRunning, running, 0, 250 * time.Second, 0},
		{"a hang no rule sees wakes it never", trainRunning, []kubeTrainAttempt{{Start: trainT0, Fault: FaultHang, FaultAt: after(125 * time.Second)}}, 0, 130 * time.Second, 0},
		{"between attempts, at the next start", trainRestarting, ended, 140 * time.Second, 135 * time.Second, 140 * time.Second},
		{"not at a next start that has come", trainRestarting, ended, 140 * time.Second, 140 * time.Second, 0},
		{"a job that has ended never", trainCompleted, nil, 0, 100 * time.Second, 0},
	}
	w := &World{speed: 1}
	for _, c := range cases {
		rec := &kubeTrainRec{Plan: kubeTrainPlan{MaxSteps: 100}, State: c.state, Attempts: c.attempts}
		if c.nextAt != 0 {
			rec.NextAt = after(c.nextAt)
		}
		got := rec.nextWake(w, after(c.now))
		checkWhen(t, c.name+": nextWake", got, !got.IsZero(), c.want, c.want != 0)
	}
}
