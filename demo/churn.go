package main

import (
	"context"
	"math/rand/v2"
	"time"
)

// setChurn starts (interval > 0), changes or stops (0) the churn: on every
// tick one resource or template marked churn flips online/offline, and the
// clock resource's subscribers get notifications/resources/updated.
func (d *demo) setChurn(interval time.Duration) {
	d.churnMu.Lock()
	defer d.churnMu.Unlock()
	if d.churnStop != nil {
		d.churnStop()
		<-d.churnDone
		d.churnStop, d.churnDone = nil, nil
		if interval <= 0 {
			d.log.Info("churn stopped")
		}
	}
	d.churnInterval = max(interval, 0)
	if interval <= 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	d.churnStop, d.churnDone = cancel, done
	d.log.Info("churn started", "interval", interval)
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				d.churnOnce()
			}
		}
	}()
}

// churnOnce flips one random churnable resource or template and touches
// the clock.
func (d *demo) churnOnce() {
	d.mu.Lock()
	var flips []func()
	for _, r := range d.resources {
		if r.churn {
			name, on := r.name, !r.online
			flips = append(flips, func() { d.setResourceOnline(name, on) })
		}
	}
	for _, t := range d.templates {
		if t.churn {
			name, on := t.name, !t.online
			flips = append(flips, func() { d.setTemplateOnline(name, on) })
		}
	}
	clock := d.resourceByName["clock"]
	d.mu.Unlock()
	if len(flips) > 0 {
		flips[rand.IntN(len(flips))]()
	}
	if clock != nil {
		d.resourceUpdated(clock.uri)
	}
}
