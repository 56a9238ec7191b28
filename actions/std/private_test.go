package std

import (
	"errors"
	"net/netip"
	"strings"
	"syscall"
	"testing"

	"github.com/flowserve/flowserve/actions"
)

// TestPrivateAddress classifies addresses without connecting anywhere.
func TestPrivateAddress(t *testing.T) {
	tests := []struct {
		addr string
		kind string // "": public
	}{
		// Loopback, in every form.
		{"127.0.0.1", "loopback"},
		{"127.255.255.254", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"64:ff9b::7f00:1", "loopback, through NAT64"},
		{"2002:7f00:1::1", "loopback, through 6to4"},
		// Link-local and the cloud metadata addresses.
		{"169.254.169.254", "link-local, cloud metadata"},
		{"169.254.0.1", "link-local, cloud metadata"},
		{"::ffff:169.254.169.254", "link-local, cloud metadata"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"fd00:ec2::254", "unique local"}, // AWS's IPv6 metadata address
		// Private ranges.
		{"10.0.0.1", "RFC 1918"},
		{"10.255.255.255", "RFC 1918"},
		{"172.16.0.1", "RFC 1918"},
		{"172.31.255.255", "RFC 1918"},
		{"192.168.1.1", "RFC 1918"},
		{"::ffff:10.1.2.3", "RFC 1918"},
		{"::ffff:192.168.0.1", "RFC 1918"},
		{"fc00::1", "unique local"},
		{"fdff:ffff::1", "unique local"},
		{"fec0::1", "site-local"},
		{"100.64.0.1", "carrier-grade NAT, RFC 6598"},
		{"100.127.255.255", "carrier-grade NAT, RFC 6598"},
		// Unspecified, multicast, reserved.
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", "unspecified"},
		{"::", "unspecified"},
		{"::ffff:0.0.0.0", "unspecified"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"ff02::1", "multicast"},
		{"ff0e::1", "multicast"},
		{"255.255.255.255", "reserved or broadcast"},
		{"240.0.0.1", "reserved or broadcast"},
		{"::7f00:1", "IPv4-compatible"},
		{"192.0.0.170", "IETF protocol assignments"},
		{"198.18.0.1", "benchmarking"},
		// Public addresses, the edges of the ranges among them.
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"93.184.215.14", ""},
		{"9.255.255.255", ""},
		{"11.0.0.0", ""},
		{"100.63.255.255", ""},
		{"100.128.0.0", ""},
		{"126.255.255.255", ""},
		{"128.0.0.0", ""},
		{"169.253.255.255", ""},
		{"169.255.0.0", ""},
		{"172.15.255.255", ""},
		{"172.32.0.0", ""},
		{"192.167.255.255", ""},
		{"192.169.0.0", ""},
		{"223.255.255.255", ""},
		{"::ffff:8.8.8.8", ""},
		{"2606:4700::1", ""},
		{"2606:4700:4700::1111", ""},
		{"2001:4860:4860::8888", ""},
		{"2a00:1450:4001:80b::200e", ""},
		{"64:ff9b::808:808", ""}, // 8.8.8.8 through NAT64
		{"2002:808:808::1", ""},  // 8.8.8.8 through 6to4
		{"fbff:ffff::1", ""},
		{"fe00::1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			kind, private := PrivateAddress(netip.MustParseAddr(tt.addr))
			if private != (tt.kind != "") || kind != tt.kind {
				t.Errorf("PrivateAddress(%s) = %q, %v; want %q, %v", tt.addr, kind, private, tt.kind, tt.kind != "")
			}
		})
	}
	if _, private := PrivateAddress(netip.Addr{}); !private {
		t.Error("the zero Addr is public")
	}
}

// TestDenyPrivateControl checks the addresses a dialer hands it.
func TestDenyPrivateControl(t *testing.T) {
	tests := []struct {
		network, address string
		want             string // "": allowed
	}{
		{"tcp4", "127.0.0.1:80", "address 127.0.0.1 is private (loopback): --http-deny-private refuses private addresses"},
		{"tcp6", "[::1]:443", "address ::1 is private (loopback)"},
		{"tcp6", "[::ffff:169.254.169.254]:80", "address ::ffff:169.254.169.254 is private (link-local, cloud metadata)"},
		{"tcp6", "[fe80::1%eth0]:80", "address fe80::1 is private (link-local)"},
		{"tcp4", "10.0.0.1:5432", "address 10.0.0.1 is private (RFC 1918)"},
		{"tcp4", "not an address", `--http-deny-private cannot tell whether tcp4 address "not an address" is private`},
		{"tcp4", "8.8.8.8:443", ""},
		{"tcp6", "[2606:4700::1]:443", ""},
	}
	for _, tt := range tests {
		err := DenyPrivateControl(tt.network, tt.address, nil)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.address, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.address, err, tt.want)
		}
	}
}

// TestHTTPDenyPrivate: with the server's DenyPrivateClient, http.request
// refuses loopback (by address, IPv4 or IPv6, or by a name resolving to
// it) at dial time; without it, loopback still works.
func TestHTTPDenyPrivate(t *testing.T) {
	srv := newRecorder(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	deny := &actions.Host{HTTPClient: DenyPrivateClient()}
	tests := []struct {
		name string
		url  string
		want string
	}{
		{"IPv4 loopback", srv.URL + "/", "address 127.0.0.1 is private (loopback): --http-deny-private refuses private addresses"},
		{"IPv6 loopback", "http://[::1]:" + port + "/", "address ::1 is private (loopback)"},
		{"IPv4-mapped loopback", "http://[::ffff:127.0.0.1]:" + port + "/", "address 127.0.0.1 is private (loopback)"},
		{"a name resolving to loopback", "http://localhost:" + port + "/", "is private (loopback)"},
		{"unspecified", "http://0.0.0.0:" + port + "/", "address 0.0.0.0 is private (unspecified)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, deny, "http.request", map[string]any{"url": tt.url})
			wantErr(t, err, tt.want)
			var perr *PrivateAddressError
			if !errors.As(err, &perr) {
				t.Errorf("error %v is not a *PrivateAddressError", err)
			}
		})
	}
	if n := len(srv.requests()); n != 0 {
		t.Fatalf("the server got %d requests", n)
	}
	// The flag off (no host client): loopback works.
	out, err := run(t, nil, "http.request", map[string]any{"url": srv.URL + "/open"})
	if err != nil || out["status"] != int64(200) {
		t.Fatalf("without deny-private: %v, %v", out, err)
	}
}

// TestHTTPDenyPrivateRedirect: a redirect into a private address is
// refused at dial time too, whatever follow_redirects says. The first
// server stands for a public one: the dialer lets its one address through.
func TestHTTPDenyPrivateRedirect(t *testing.T) {
	a, b := newRedirector(t), newRecorder(t)
	public := strings.TrimPrefix(a.URL, "http://")
	host := &actions.Host{HTTPClient: controlledClient(func(network, address string, c syscall.RawConn) error {
		if address == public {
			return nil
		}
		return DenyPrivateControl(network, address, c)
	})}
	bPort := b.URL[strings.LastIndex(b.URL, ":")+1:]
	for _, target := range []string{b.URL + "/landing", "http://localhost:" + bPort + "/landing"} {
		_, err := run(t, host, "http.request", map[string]any{"url": via(a, "/go", target), "follow_redirects": "always"})
		wantErr(t, err, "is private (loopback): --http-deny-private refuses private addresses")
	}
	if n := len(b.requests()); n != 0 {
		t.Fatalf("the private server got %d requests", n)
	}
	// The allowed server itself is reached (the control is not refusing all).
	out, err := run(t, host, "http.request", map[string]any{"url": a.URL + "/here"})
	if err != nil || out["status"] != int64(200) {
		t.Fatalf("the allowed address: %v, %v", out, err)
	}
}
