package std

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// A PrivateAddressError is the error of a connection that
// [DenyPrivateControl] refused.
type PrivateAddressError struct {
	Addr netip.Addr // the address that was to be dialled
	Kind string     // what makes it private: "loopback", "link-local", ...
}

// Error says which address was refused, why, and by what.
func (e *PrivateAddressError) Error() string {
	return fmt.Sprintf("address %s is private (%s): --http-deny-private refuses private addresses", e.Addr, e.Kind)
}

// privateRanges are the ranges [PrivateAddress] refuses, the first match
// naming the kind. IPv4-mapped, NAT64 and 6to4 addresses are checked as
// the IPv4 address they embed.
var privateRanges = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("10.0.0.0/8"), "RFC 1918"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT, RFC 6598"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local, cloud metadata"},
	{netip.MustParsePrefix("172.16.0.0/12"), "RFC 1918"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.168.0.0/16"), "RFC 1918"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved or broadcast"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible"},
	{netip.MustParsePrefix("fc00::/7"), "unique local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// Prefixes of IPv6 addresses that embed an IPv4 address: NAT64's
// well-known and local-use prefixes (the last 4 bytes), and 6to4 (bytes 2
// to 5).
var (
	nat64Prefixes = []netip.Prefix{netip.MustParsePrefix("64:ff9b::/96"), netip.MustParsePrefix("64:ff9b:1::/48")}
	sixToFour     = netip.MustParsePrefix("2002::/16")
)

// PrivateAddress reports whether ip is not a public unicast address —
// loopback, link-local (169.254.169.254, the cloud metadata address,
// among them), private (RFC 1918, fc00::/7), carrier-grade NAT
// (100.64.0.0/10), unspecified, multicast, reserved — and names its kind.
// An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as its IPv4
// address, as are NAT64 and 6to4 addresses; an invalid ip is private.
func PrivateAddress(ip netip.Addr) (kind string, private bool) {
	if !ip.IsValid() {
		return "not an address", true
	}
	ip = ip.WithZone("").Unmap() // Prefix.Contains never matches a zoned address
	if ip.Is6() {
		b := ip.As16()
		for _, p := range nat64Prefixes {
			if p.Contains(ip) {
				if kind, private := PrivateAddress(netip.AddrFrom4([4]byte(b[12:16]))); private {
					return kind + ", through NAT64", true
				}
			}
		}
		if sixToFour.Contains(ip) {
			if kind, private := PrivateAddress(netip.AddrFrom4([4]byte(b[2:6]))); private {
				return kind + ", through 6to4", true
			}
		}
	}
	for _, r := range privateRanges {
		if r.prefix.Contains(ip) {
			return r.kind, true
		}
	}
	return "", false
}

// DenyPrivateControl is a [net.Dialer] Control function that refuses to
// connect to a [PrivateAddress], with a *[PrivateAddressError]. It runs
// on the address actually dialled, after name resolution, so a host name
// that resolves to a private address (metadata.google.internal, or a name
// rebound between two lookups) is refused as the address itself is, and
// so is a redirect to one.
func DenyPrivateControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("--http-deny-private cannot tell whether %s address %q is private: %w", network, address, err)
	}
	if kind, private := PrivateAddress(ap.Addr()); private {
		return &PrivateAddressError{Addr: ap.Addr().WithZone(""), Kind: kind}
	}
	return nil
}

// DenyPrivateClient returns an HTTP client, for [actions.Host].HTTPClient,
// whose connections go only to public addresses: its dialer checks each
// address with [DenyPrivateControl]. It connects directly, never through
// the proxy that $HTTP_PROXY or $HTTPS_PROXY names, so that the address
// checked is the one the request goes to. Its other settings are those of
// Go's default transport.
func DenyPrivateClient() *http.Client {
	return controlledClient(DenyPrivateControl)
}

// controlledClient returns a client whose dialer calls control on each
// address it connects to.
func controlledClient(control func(network, address string, c syscall.RawConn) error) *http.Client {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: control}
	return &http.Client{Transport: &http.Transport{
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
}
