// Package edge is the HTTP edge of the service: the router that puts each
// route behind its guards, the middleware every request passes (request id,
// access log, panic recovery, deadlines), and Fail, the one place where an
// error becomes an answer. What lies behind the edge — guards, operations —
// returns errors and leaves their rendering here.
package edge
