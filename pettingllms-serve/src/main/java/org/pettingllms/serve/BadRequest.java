package org.pettingllms.serve;

/** A request the server refuses with a 4xx: the field it names and what was expected. */
final class BadRequest extends RuntimeException {
    final int status;
    final String param;

    BadRequest(int status, String param, String message) {
        super(message);
        this.status = status;
        this.param = param;
    }

    static BadRequest field(String param, String expected) {
        return new BadRequest(400, param, "field '" + param + "': " + expected);
    }
}
