package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

func TestPage(t *testing.T) {
	items := []int{1, 2, 3, 4, 5}
	var got []int
	var token *string
	for pages := 1; ; pages++ {
		part, next, err := page(items, token, aws.Int32(2), 100)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, part...)
		if next == nil {
			if pages != 3 {
				t.Errorf("%d pages, want 3", pages)
			}
			break
		}
		token = next
	}
	if len(got) != 5 || got[4] != 5 {
		t.Errorf("paged items = %v", got)
	}
	if all, next, _ := page(items, nil, nil, 100); len(all) != 5 || next != nil {
		t.Errorf("default page = %v, %v", all, next)
	}
	for _, bad := range []string{"not base64!", "LTE", "OTk"} { // -1, 99
		if _, _, err := page(items, aws.String(bad), nil, 100); err != errBadToken {
			t.Errorf("token %q: err = %v", bad, err)
		}
	}
}
