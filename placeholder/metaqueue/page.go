package metaqueue

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/internal/httpapi"
)

// The status page (GET / and GET /status): read-only, one HTML document
// with its style and script inline, built from the groups' Status. The
// page is rendered by html/template, which escapes every name, host, local
// id, key and command (user input) for where it lands.

// pageScript counts the page's script errors and policy violations in
// data-errors and sets data-ready once loaded (for a browser test, and for
// a person who wonders).
const pageScript = `(function(){var d=document.documentElement,n=0;d.setAttribute('data-errors','0');` +
	`function e(){n++;d.setAttribute('data-errors',String(n))}` +
	`window.addEventListener('error',e,true);document.addEventListener('securitypolicyviolation',e);` +
	`window.addEventListener('load',function(){d.setAttribute('data-ready','1')})})();`

const pageStyle = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ddd;padding:.2em .6em;text-align:right}
th{background:#f4f4f4}td.t{text-align:left;font-family:monospace;max-width:40em;overflow-wrap:anywhere}
.big{font-size:1.3em;font-weight:bold}.note{color:#666}meter{width:12em}`

// pageCSP allows the page's own style and script only (no other origin,
// no other inline code).
var pageCSP = "default-src 'none'; style-src '" + hash(pageStyle) + "'; script-src '" + hash(pageScript) + "'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
}

var pageTemplate = template.Must(template.New("status").Funcs(template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05Z")
	},
	"rate": func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"max":  maxOf,
	"inc":  func(i int) int { return i + 1 },
	"ago":  func(st *Status, i int) int { return 60 - i*st.IntervalSeconds/60 },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<script>{{.Script}}</script>
{{if .Refresh}}<meta http-equiv="refresh" content="{{.Refresh}}">{{end}}
<title>gmark placeholder status</title>
<style>{{.Style}}</style></head>
<body>
<h1>gmark placeholder: metaqueue status</h1>
<p class="note">Read-only; as of <span id="now">{{when .Now}}</span>{{if .Refresh}}, reloaded every {{.Refresh}} s{{end}}. {{len .Groups}} group(s).</p>
{{range $g := .Groups}}
<section id="group-{{$g.Group}}">
<h2>Group {{$g.Group}} <span class="note">({{$g.Policy}}{{if $g.Stopped}}, stopped{{end}})</span></h2>
<p class="big"><span id="remaining-{{$g.Group}}">{{$g.Remaining}}</span> command lines remaining</p>
<table><tr><th>waiting</th><th>running</th><th>done</th><th>failed</th><th>removed</th><th>all jobs</th></tr>
<tr><td id="jobs-{{$g.Group}}-waiting">{{$g.Waiting}}</td><td id="jobs-{{$g.Group}}-running">{{$g.Running}}</td><td id="jobs-{{$g.Group}}-done">{{$g.Done}}</td><td id="jobs-{{$g.Group}}-failed">{{$g.Failed}}</td><td id="jobs-{{$g.Group}}-removed">{{$g.Removed}}</td><td id="jobs-{{$g.Group}}-all">{{$g.Jobs}}</td></tr></table>
<h3>Placeholders per site</h3>
<table><tr><th>site</th><th>queued</th><th>executing</th><th>idle</th><th>ended</th><th>jobs done</th><th>done, last hour</th></tr>
{{range $g.Sites}}<tr><td class="t">{{.Site}}</td><td id="ph-{{$g.Group}}-{{.Site}}-queued">{{.Queued}}</td><td id="ph-{{$g.Group}}-{{.Site}}-executing">{{.Executing}}</td><td id="ph-{{$g.Group}}-{{.Site}}-idle">{{.Idle}}</td><td id="ph-{{$g.Group}}-{{.Site}}-ended">{{.Ended}}</td><td id="site-{{$g.Group}}-{{.Site}}-done">{{.Done}}</td><td>{{.LastHour}}</td></tr>
{{end}}</table>
<h3>Throughput</h3>
<p><span id="lasthour-{{$g.Group}}">{{$g.LastHour}}</span> jobs done in the last hour; overall <span id="overall-{{$g.Group}}">{{rate $g.Overall}}</span> jobs/h{{if not $g.FirstBind.IsZero}} (first job bound {{when $g.FirstBind}}{{if not $g.LastEnd.IsZero}}, last ended {{when $g.LastEnd}}{{end}}){{end}}.</p>
<table><tr><th>minutes ago</th><th>jobs done</th><th></th></tr>
{{$m := max $g.Recent}}{{range $i, $n := $g.Recent}}<tr><td>{{ago $g $i}}–{{ago $g (inc $i)}}</td><td id="recent-{{$g.Group}}-{{$i}}">{{$n}}</td><td><meter min="0" max="{{$m}}" value="{{$n}}"></meter></td></tr>
{{end}}</table>
<h3>Active placeholders</h3>
{{if $g.Placeholders}}<table><tr><th>metaqueue id</th><th>site</th><th>state</th><th>host</th><th>local id</th><th>submitted</th><th>started</th><th>job</th><th>key</th><th>command</th></tr>
{{range $g.Placeholders}}<tr><td>{{.ID}}</td><td class="t">{{.Site}}</td><td>{{.State}}</td><td class="t">{{.Host}}</td><td class="t">{{.LocalID}}</td><td>{{when .Submitted}}</td><td>{{when .Started}}</td><td>{{if .Job}}{{.Job}}{{end}}</td><td class="t">{{.Key}}</td><td class="t">{{.Command}}</td></tr>
{{end}}</table>{{if $g.MorePlaceholders}}<p class="note">and {{$g.MorePlaceholders}} more (GET /v1/groups/{{$g.Group}}/placeholders lists them all).</p>{{end}}
{{else}}<p class="note">none</p>{{end}}
</section>
{{else}}<p>No group yet.</p>
{{end}}
</body></html>
`))

func maxOf(v []int) int {
	m := 1
	for _, n := range v {
		m = max(m, n)
	}
	return m
}

// pageData is what the template renders.
type pageData struct {
	Script  template.JS
	Style   template.CSS
	Refresh int
	Now     time.Time
	Groups  []*Status
}

// statusPage answers the page. ?refresh=N reloads it every N seconds (0:
// never; default 10).
func (s *Server) statusPage(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		httpapi.Fail(w, http.StatusForbidden, "the status page answers only to a loopback host name (127.0.0.1, [::1], localhost), not %q", r.Host)
		return
	}
	refresh, err := intParam(r, "refresh", 10, 0, 3600)
	if err != nil {
		answer(w, 0, nil, err)
		return
	}
	gs, err := s.Statuses(r.Context())
	if err != nil {
		answer(w, 0, nil, err)
		return
	}
	var b bytes.Buffer
	d := pageData{Script: template.JS(pageScript), Style: template.CSS(pageStyle), Refresh: int(refresh), Now: s.cfg.Now(), Groups: gs}
	if err := pageTemplate.Execute(&b, d); err != nil {
		httpapi.Fail(w, http.StatusInternalServerError, "the status page: %v", err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	_, _ = w.Write(b.Bytes())
}

func (s *Server) statusJSON(w http.ResponseWriter, r *http.Request) {
	v, err := s.Status(r.Context(), r.PathValue("g"))
	answer(w, http.StatusOK, v, err)
}

// loopbackHost tells whether a request's Host names the loopback (an
// address, or localhost): a page of another site whose name was rebound
// to 127.0.0.1 (DNS rebinding) sends its own name, and is refused.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
