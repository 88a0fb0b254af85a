package placeholder

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gmark/gmark/internal/testkit"
	"github.com/gmark/gmark/placeholder/metaqueue"
)

const statusGroups = `
[[group]]
name = "work"
[[group.site]]
name = "ws"
kind = "zinf"

[[group]]
name = "evil"
[[group.site]]
name = "s"
kind = "zinf"
`

// The status page of a real 'gmark placeholder serve', opened in headless
// Chromium: after real zinf placeholders ran a group's jobs, and a
// placeholder with hostile names holds a job with a hostile command in
// another group (a key cannot be hostile: it is refused), the rendered
// page shows the state's counts, the names as text, and no script error or
// policy violation.
func TestStatusPageInChromium(t *testing.T) {
	t.Parallel() // a live server in a directory of its own, waiting in real time: runs beside the others
	bin := testkit.Chromium(t)
	const n = 12
	l := startLive(t, statusGroups)
	l.addJobs("work", n, "")
	l.startPH("work", "ws", 2)
	l.waitDone("work", 3*time.Minute)
	ctx := context.Background()
	cmd := `<script>alert("key&")</script> echo '"x" & y' </script><img src=x onerror=alert(1)>`
	if _, err := l.client.AddJobs(ctx, "evil", []metaqueue.NewJob{{Key: "evil-1", Command: cmd}, {Command: "true"}, {Command: "true"}}); err != nil {
		t.Fatal(err)
	}
	host := `<b onmouseover="alert(2)">h&amp;</b>`
	if r, err := l.client.Pull(ctx, "evil", metaqueue.PullRequest{Ident: metaqueue.Ident{Site: "s", Host: host, LocalID: "1"}, Seq: 1}); err != nil || r.Order == nil {
		t.Fatal(r, err)
	}
	// The work group's last placeholders leave (refused, exit 111).
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		active, err := l.client.Placeholders(ctx, "work", false)
		if err == nil && len(active) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("placeholders still active: %+v %v\n%s", active, err, l.describe(active))
		}
	}
	dom, stderr := testkit.Headless(t, bin, "--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000", "--dump-dom", "http://"+l.addr+"/")
	work, err := l.client.Status(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	root := regexp.MustCompile(`<html[^>]*>`).FindString(dom)
	if !strings.Contains(root, `data-ready="1"`) || !strings.Contains(root, `data-errors="0"`) {
		t.Errorf("the page's script did not run, or counted errors: %s", root)
	}
	for _, bad := range []string{"Uncaught", "Refused to", "Content Security Policy"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("chromium says %q:\n%s", bad, stderr)
		}
	}
	got := map[string]string{}
	for _, m := range regexp.MustCompile(`id="([^"]+)">([^<]*)<`).FindAllStringSubmatch(dom, -1) {
		got[m[1]] = m[2]
	}
	ws := work.Sites[0]
	all, err := l.client.Placeholders(ctx, "work", true)
	if err != nil || len(all) != ws.Ended {
		t.Errorf("%d placeholder records, %d ended in the status: %v", len(all), ws.Ended, err)
	}
	want := map[string]int{
		"remaining-work": 0, "jobs-work-done": n, "jobs-work-all": n, "site-work-ws-done": n, "lasthour-work": n,
		"ph-work-ws-ended": ws.Ended, "ph-work-ws-queued": 0, "ph-work-ws-executing": 0, "ph-work-ws-idle": 0,
		"remaining-evil": 3, "jobs-evil-waiting": 2, "jobs-evil-running": 1, "ph-evil-s-executing": 1, "jobs-evil-done": 0,
	}
	for id, w := range want {
		if got[id] != fmt.Sprint(w) {
			t.Errorf("%s = %q in the rendered page, want %d", id, got[id], w)
		}
	}
	if ws.Ended < n || work.LastHour != n || work.Done != n {
		t.Errorf("work: %d placeholders ended for %d jobs; %d done, %d in the last hour", ws.Ended, n, work.Done, work.LastHour)
	}
	for _, s := range []string{`&lt;script&gt;alert("key&amp;")&lt;/script&gt;`, `echo '"x" &amp; y' &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;`, `&lt;b onmouseover="alert(2)"&gt;h&amp;amp;&lt;/b&gt;`} {
		if !strings.Contains(dom, s) {
			t.Errorf("the rendered page lacks the text %s", s)
		}
	}
	if c := strings.Count(dom, "<script"); c != 1 || strings.Contains(dom, "<img") || strings.Contains(dom, "<b ") {
		t.Errorf("markup from the names reached the DOM (%d script elements):\n%s", c, dom)
	}
}
