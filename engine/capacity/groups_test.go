package capacity

import "testing"

func TestAccelerated(t *testing.T) {
	for typ, want := range map[string]bool{
		"ml.p5.48xlarge": true, "ml.g5.xlarge": true, "ml.trn1.32xlarge": true, "ml.m5.xlarge": false, "ml.c5.large": false, "ml.t3.medium": false,
	} {
		if got := Accelerated(typ); got != want {
			t.Errorf("Accelerated(%s) = %v, want %v", typ, got, want)
		}
	}
}
