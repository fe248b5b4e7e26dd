package cloud

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

func TestCollectFollowsEveryPage(t *testing.T) {
	items := []string{"a", "b", "c", "d"}
	calls := 0
	got, err := Collect("ListThings", func(token *string) (*[]string, error) {
		calls++
		i := 0
		if token != nil {
			i, _ = strconv.Atoi(*token)
		}
		page := items[i : i+1]
		return &page, nil
	}, func(o *[]string) ([]string, *string) {
		n := strings.Index("abcd", (*o)[0]) + 1
		if n == len(items) {
			return *o, nil
		}
		return *o, aws.String(strconv.Itoa(n))
	})
	if err != nil || strings.Join(got, "") != "abcd" || calls != 4 {
		t.Errorf("got %v, %v in %d calls; want a, b, c, d in 4", got, err, calls)
	}
}

func TestPagesStopsEarlyAndIsBounded(t *testing.T) {
	calls := 0
	err := Pages("FindThing", func(*string) (*string, error) {
		calls++
		if calls == 3 {
			return nil, StopPages
		}
		return aws.String("more"), nil
	})
	if err != nil || calls != 3 {
		t.Errorf("stop: %v after %d calls, want nil after 3", err, calls)
	}
	calls = 0
	err = Pages("ListForever", func(*string) (*string, error) { calls++; return aws.String("more"), nil })
	if err == nil || !strings.Contains(err.Error(), "ListForever") || calls != MaxPages {
		t.Errorf("endless: %v after %d calls, want an error naming ListForever after %d", err, calls, MaxPages)
	}
	boom := errors.New("boom")
	if err := Pages("ListBroken", func(*string) (*string, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("a failing page gave %v", err)
	}
}
