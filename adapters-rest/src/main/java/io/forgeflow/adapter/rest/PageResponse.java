package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.domain.port.Page;

import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/** One page of a list: {@code {"items": [...], "next_cursor": "..."}}, {@code next_cursor} null on the last page. */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"items", "next_cursor"})
public record PageResponse<T>(@JsonProperty("items") List<T> items, @JsonProperty("next_cursor") String nextCursor) {

    static <D, T> PageResponse<T> of(Page<D> page, Function<D, T> map) {
        return new PageResponse<>(page.items().stream().map(map).collect(Collectors.toList()), page.nextCursor());
    }
}
