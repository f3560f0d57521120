package org.pettingllms.http;

/** A request the server refuses with a 4xx: the field it names and what was expected. */
public final class BadRequest extends RuntimeException {
    public final int status;
    public final String param;

    public BadRequest(int status, String param, String message) {
        super(message);
        this.status = status;
        this.param = param;
    }

    public static BadRequest field(String param, String expected) {
        return new BadRequest(400, param, "field '" + param + "': " + expected);
    }
}
