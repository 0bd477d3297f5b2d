package reliability

import (
	"fmt"
	"io"
	"net"
	"sync"
)

// apiProxy is a TCP proxy on 127.0.0.1 in front of the API server. An
// operator that talks to the API server through it sees the API server go
// away when the proxy is cut (every connection closed, new ones refused) and
// come back, same address, same certificates, when it is restored: the
// effect of stopping and restarting the API server, without envtest's
// restart, which provisions new certificates and users.
type apiProxy struct {
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

func newAPIProxy(target string) (*apiProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &apiProxy{target: target, addr: ln.Addr().String(), conns: map[net.Conn]bool{}}
	p.serve(ln)
	return p, nil
}

func (p *apiProxy) serve(ln net.Listener) {
	p.ln = ln
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Add(1)
			go func() { defer p.wg.Done(); p.pipe(c) }()
		}
	}()
}

func (p *apiProxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(c, up) {
		c.Close()
		up.Close()
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
	c.Close()
	up.Close()
	<-done
	p.untrack(c, up)
}

// track registers a connection pair unless the proxy is cut.
func (p *apiProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		return false
	}
	for _, c := range conns {
		p.conns[c] = true
	}
	return true
}

func (p *apiProxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
	}
}

// cut closes the listener and every connection: clients get connection
// refused until restore.
func (p *apiProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		return
	}
	p.ln.Close()
	p.ln = nil
	for c := range p.conns {
		c.Close()
	}
}

// restore listens again on the same address.
func (p *apiProxy) restore() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("listen again on %s: %w", p.addr, err)
	}
	p.serve(ln)
	return nil
}

// isCut reports whether the proxy is cut.
func (p *apiProxy) isCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ln == nil
}

// close stops the proxy and waits for its goroutines.
func (p *apiProxy) close() {
	p.cut()
	p.wg.Wait()
}
